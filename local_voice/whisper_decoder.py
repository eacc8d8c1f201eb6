"""Whisper's text decoder in NumPy, run once over a tree of sentences.

The back-up scores a few dozen sentences per vote that mostly share their beginning ("I
vote for" + every name). CTranslate2's `Whisper.align` runs its decoder over each
sentence separately, works out every position's distribution, the cross-attention's key
and value projections of the audio again for each sentence, and a DTW alignment the box
never uses: on an AVX2 CPU it took about 1 s of each 1.1-1.5 s read (round 9).

Here the sentences' tokens form a prefix tree (a trie); every node of it is one decoder
position, attending to its ancestors only (a tree mask), so a shared beginning is
computed once; the audio's keys and values are computed once per utterance
(`memory`); and the vocabulary projection, the costliest step, runs only at the
positions whose next token is scored. The arithmetic is the model's own (float32 weights
from its model.bin).

`align` has two quirks, which `like_align` (WhisperScorer's "tree-align") keeps, so that
the tree's scores are `align`'s to rounding (tested against `Whisper.align` at compute
type float32): a token's probability is a softmax over the text tokens only (`align`'s
`text_token_probs`, as in openai-whisper's timing code), so the end of text has none
and counts as `align`'s floor, log(1e-12); and `align` puts `<|notimestamps|>` after
the start sequence it is given, which already ends with it (`WhisperScorer.start`).
By default the sentence is read as the model reads a transcript instead: its start
once, and its end of text scored like any token (the softmax over the text tokens and
the end). A sentence that stops before the audio does ("I vote for Ign") then loses to
the whole name; on the bench's clips, Whisper's best sentence named the player said in
162 of 194 clean votes instead of 158, and 41 of 60 respelled instead of 38 (round 10).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# CTranslate2's DataType enum (include/ctranslate2/types.h), as model.bin stores it
_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}
END_OF_TEXT = math.log(1e-12)  # what `align` gives the end of text (see the docstring)


def read_decoder(path: Path) -> dict[str, np.ndarray]:
    """The decoder's variables from a CTranslate2 model.bin (binary version 5 or later),
    as float32; the encoder's are skipped without being read."""
    out: dict[str, np.ndarray] = {}
    with open(path, "rb") as f:
        def number(fmt: str) -> int:
            return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]

        def string() -> str:
            return f.read(number("H"))[:-1].decode()

        version = number("I")
        if version < 5:
            raise ValueError(f"{path}: CTranslate2 model version {version} is too old")
        string()  # the spec's name
        number("I")  # its revision
        for _ in range(number("I")):
            name = string()
            shape = tuple(number("I") for _ in range(number("B")))
            dtype = number("B")
            size = number("I")
            if not name.startswith("decoder/"):
                f.seek(size, 1)
                continue
            if dtype not in _DTYPES:
                raise ValueError(f"{path}: {name} has a data type NumPy cannot read")
            value = np.frombuffer(f.read(size), _DTYPES[dtype]).reshape(shape)
            out[name.removeprefix("decoder/")] = value.astype(np.float32) \
                if value.dtype.kind == "f" else value
    return out


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, -1, keepdims=True)
    return centred / np.sqrt(var + 1e-5) * gamma + beta


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU Whisper uses; erf by Abramowitz and Stegun 7.1.26 (error
    under 1.5e-7: NumPy has no erf)."""
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    t = 1 / (1 + np.float32(0.3275911) * z)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
            + 0.254829592) * t
    erf = np.sign(x) * (1 - poly * np.exp(-z * z))
    return 0.5 * x * (1 + erf)


def _softmax_rows(a: np.ndarray) -> np.ndarray:
    a -= a.max(-1, keepdims=True)
    np.exp(a, out=a)
    a /= a.sum(-1, keepdims=True)
    return a


@dataclass
class Trie:
    """Token sequences as a prefix tree: node k has `token[k]` at `depth[k]` under
    `parent[k]` (-1 for a first token), heard in audio `source[k]` (sequences scored
    against different audio share no node); `ends[i]` are sequence i's nodes in order."""

    token: list[int]
    parent: list[int]
    depth: list[int]
    source: list[int]
    ends: list[list[int]]

    @classmethod
    def of(cls, sequences: list[list[int]], sources: list[int] | None = None) -> Trie:
        index: dict[tuple[int, int], int] = {}  # (parent, token) -> node
        token: list[int] = []
        parent: list[int] = []
        depth: list[int] = []
        source: list[int] = []
        ends = []
        for i, sequence in enumerate(sequences):
            heard = sources[i] if sources is not None else 0
            node, nodes = -1 - heard, []  # each source its own root
            for k, tok in enumerate(sequence):
                child = index.get((node, tok))
                if child is None:
                    child = index[(node, tok)] = len(token)
                    token.append(tok)
                    parent.append(max(node, -1))
                    depth.append(k)
                    source.append(heard)
                node = child
                nodes.append(node)
            ends.append(nodes)
        return cls(token, parent, depth, source, ends)

    def path(self, node: int) -> tuple[int, ...]:
        """The tokens from the root to `node`, itself included."""
        tokens = []
        while node >= 0:
            tokens.append(self.token[node])
            node = self.parent[node]
        return tuple(reversed(tokens))

    def ancestry(self) -> np.ndarray:
        """mask[i, j]: node j is node i or one of its ancestors (what i attends to)."""
        n = len(self.token)
        mask = np.zeros((n, n), dtype=bool)
        for k, up in enumerate(self.parent):  # a parent always comes before its child
            if up >= 0:
                mask[k] = mask[up]
            mask[k, k] = True
        return mask


class TreeDecoder:
    """Whisper's decoder (pre-norm, learned positions, tied output embedding) over a
    trie of sentences; see the module's docstring."""

    MAX_NODES = 640  # a larger tree is scored in parts (memory: the tree mask is n x n)
    ROWS = 96  # vocabulary projections at once (96 x 50k floats: 19 MB)

    def __init__(self, path: Path, eot: int, like_align: bool = False):
        w = read_decoder(Path(path))
        self.eot = eot
        # like_align: the end of text scored as `align` scores it (module docstring);
        # otherwise it is a token like the others, the softmax over the text tokens and it
        self.like_align = like_align
        self.heads = int(np.asarray(w["num_heads"]).reshape(-1)[0])
        self.layers = sum(1 for k in w if k.endswith("self_attention/linear_0/weight"))
        self.embeddings = np.ascontiguousarray(w["embeddings/weight"])
        self.positions = w["position_encodings/encodings"]
        self.width = self.embeddings.shape[1]
        if int(np.asarray(w.get("scale_embeddings", 0)).reshape(-1)[0]):
            raise ValueError("a Whisper decoder with scaled embeddings is not supported")
        if "projection/weight" in w:  # Whisper ties it to the embeddings (an alias)
            raise ValueError("a Whisper decoder with its own output projection is not "
                             "supported")
        # the weights transposed once, so that every product is x @ W
        self.w = {k: np.ascontiguousarray(v.T) if k.endswith("weight") and v.ndim == 2
                  else v for k, v in w.items() if k.startswith("layer")}
        self.final = (w["layer_norm/gamma"], w["layer_norm/beta"])

    def memory(self, encoded: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The audio's keys and values in every layer's cross-attention, once per
        utterance: (heads, head width, frames) and (heads, frames, head width)."""
        audio = np.asarray(encoded, dtype=np.float32).reshape(-1, self.width)
        head = self.width // self.heads
        out = []
        for i in range(self.layers):
            p = f"layer_{i}/attention/linear_1/"
            keys, values = np.split(audio @ self.w[p + "weight"] + self.w[p + "bias"], 2, -1)
            out.append((keys.reshape(-1, self.heads, head).transpose(1, 2, 0).copy(),
                        values.reshape(-1, self.heads, head).transpose(1, 0, 2).copy()))
        return out

    def log_probs_of(self, groups: list[tuple[list, list[list[int]]]], scored_from: int,
                     branches: dict[tuple[int, ...], np.ndarray] | None = None,
                     ) -> list[list[float]]:
        """Each sequence's log probability from position `scored_from` on (its start
        sequence is not scored; with `like_align`, an end of text counts END_OF_TEXT),
        for one audio or several at once ((memory, sequences) each: an utterance and
        the silence its sentences are measured against), in one tree: the model's
        weights are read from memory once per tree, which costs as much as a few dozen
        sentences on a small machine. `branches`, where given, is filled with the next
        token's log probabilities (over the text tokens and the end of text, as
        `next_logits`) at each node of the first group's sentences where they part
        (BRANCH children or more), by the node's tokens from the start: what a later
        question about the same audio after that beginning needs without a pass of its
        own (`WhisperScorer.next_log_probs`)."""
        memories = [m for m, _ in groups]
        items = [(g, k) for g, (_, seqs) in enumerate(groups) for k in range(len(seqs))]
        # in order, so that a part shares as many beginnings as it can
        items.sort(key=lambda item: (item[0], groups[item[0]][1][item[1]]))
        result = [[0.0] * len(seqs) for _, seqs in groups]
        part: list[tuple[int, int]] = []
        nodes = 0
        for item in [*items, None]:
            extra = len(groups[item[0]][1][item[1]]) if item is not None else 0
            if part and (item is None or nodes + extra > self.MAX_NODES):
                values = self._part(memories, [groups[g][1][k] for g, k in part],
                                    [g for g, _ in part], scored_from, branches)
                for (g, k), value in zip(part, values, strict=True):
                    result[g][k] = value
                part, nodes = [], 0
            if item is not None:
                part.append(item)
                nodes += extra  # an upper bound on the nodes the sequence adds
        return result

    def greedy(self, memory: list, prompt: list[int], steps: int,
               suppress: tuple[int, ...] = (), suppress_first: tuple[int, ...] = ()
               ) -> list[int]:
        """Greedy decoding's next tokens after `prompt`, at most `steps`, up to the end of
        text (left out); `suppress`: tokens never chosen, `suppress_first`: nor first
        (CTranslate2's suppress_ids and suppress_ids_begin, from the model's
        config.json). The decoder runs over the whole sequence at every step (no cache:
        a sequence this short costs about what one token does, about 21 ms for base on 2
        x86 cores), so a long prompt costs one step: CTranslate2 forces a prompt token by
        token, about 15 ms each."""
        sequence, out = list(prompt), []
        text = self.eot + 1  # the text tokens and the end of text
        never = [t for t in suppress if t < text]
        not_first = [t for t in suppress_first if t < text]
        for step in range(steps):
            logits = self.next_logits(memory, sequence)
            logits[never] = -np.inf
            if step == 0:
                logits[not_first] = -np.inf
            token = int(np.argmax(logits))
            if token == self.eot:
                break
            out.append(token)
            sequence.append(token)
        return out

    def next_logits(self, memory: list, sequence: list[int]) -> np.ndarray:
        """The logits of the token after `sequence` over the text tokens and the end of
        text (one step of the decoder, without a cache)."""
        trie = Trie.of([sequence], [0])
        hidden = self._hidden([memory], trie)[trie.ends[0][-1]]
        return self.embeddings[: self.eot + 1] @ hidden

    def _part(self, memories: list, sequences: list[list[int]], sources: list[int],
              scored_from: int, branches: dict[tuple[int, ...], np.ndarray] | None = None
              ) -> list[float]:
        # the end of text is never fed to the decoder (nothing follows it): it is scored
        # at the position before it, or by align's floor
        trie = Trie.of([[t for t in s if t != self.eot] for s in sequences], sources)
        hidden = self._hidden(memories, trie)
        # the positions whose next token is scored, and those tokens
        floor = self.like_align
        wanted = sorted({trie.ends[i][k - 1] for i, s in enumerate(sequences)
                         for k in range(max(1, scored_from), len(s))
                         if not (floor and s[k] == self.eot)})
        row = {node: r for r, node in enumerate(wanted)}
        norms = np.empty(len(wanted), dtype=np.float64)
        # the tokens a transcript can hold: the text tokens, and its end (`align`'s
        # softmax is over the text tokens only)
        text = self.embeddings[: self.eot + (0 if floor else 1)]
        kept = self._branch_nodes(trie, wanted, 0) \
            if branches is not None and not floor else set()
        for start in range(0, len(wanted), self.ROWS):
            rows = wanted[start : start + self.ROWS]
            block = text @ hidden[rows].T  # (text tokens, rows): the faster layout
            keep = [(r, node) for r, node in enumerate(rows) if node in kept]
            logits = [block[:, r].copy() for r, _ in keep]  # before the exponentials
            top = block.max(0)
            block -= top
            np.exp(block, out=block)
            norms[start : start + len(rows)] = top + np.log(block.sum(0, dtype=np.float64))
            for (r, node), values in zip(keep, logits, strict=True):
                values -= np.float32(norms[start + r])
                branches[trie.path(node)] = values  # type: ignore[index]
        out = []
        for i, sequence in enumerate(sequences):
            total = 0.0
            nodes = trie.ends[i]
            for k in range(max(1, scored_from), len(sequence)):
                tok = sequence[k]
                if floor and tok == self.eot:
                    total += END_OF_TEXT
                    continue
                at = nodes[k - 1]
                total += float(self.embeddings[tok] @ hidden[at]) - norms[row[at]]
            out.append(total)
        return out

    BRANCH = 2  # children a node needs for `log_probs_of` to keep its distribution

    def _branch_nodes(self, trie: Trie, wanted: list[int], source: int) -> set[int]:
        """The nodes of `wanted` heard in audio `source` (the first group's: 0) where
        BRANCH or more of the tree's sentences part."""
        children: dict[int, int] = {}
        for up in trie.parent:
            if up >= 0:
                children[up] = children.get(up, 0) + 1
        return {node for node in wanted if trie.source[node] == source
                and children.get(node, 0) >= self.BRANCH}

    def _hidden(self, memories: list, trie: Trie) -> np.ndarray:
        """The decoder's last hidden state (after the final layer norm) at every node."""
        n = len(trie.token)
        head = self.width // self.heads
        scale = np.float32(1 / math.sqrt(head))
        blocked = np.where(trie.ancestry(), np.float32(0), np.float32(-1e30))
        x = self.embeddings[trie.token] + self.positions[trie.depth]
        source = np.asarray(trie.source)
        sources = [(heard, np.flatnonzero(source == heard)) for heard in np.unique(source)]
        w = self.w
        for i in range(self.layers):
            p = f"layer_{i}/"
            h = _layer_norm(x, w[p + "self_attention/layer_norm/gamma"],
                            w[p + "self_attention/layer_norm/beta"])
            qkv = h @ w[p + "self_attention/linear_0/weight"] + \
                w[p + "self_attention/linear_0/bias"]
            # contiguous heads: NumPy's stacked matmul uses BLAS only on those
            q, k, v = (np.ascontiguousarray(a.reshape(n, self.heads, head).transpose(1, 0, 2))
                       for a in np.split(qkv, 3, -1))
            a = _softmax_rows((q * scale) @ np.ascontiguousarray(k.transpose(0, 2, 1))
                              + blocked)
            o = (a @ v).transpose(1, 0, 2).reshape(n, self.width)
            x = x + o @ w[p + "self_attention/linear_1/weight"] + \
                w[p + "self_attention/linear_1/bias"]
            h = _layer_norm(x, w[p + "attention/layer_norm/gamma"],
                            w[p + "attention/layer_norm/beta"])
            q = (h @ w[p + "attention/linear_0/weight"] + w[p + "attention/linear_0/bias"])
            q = np.ascontiguousarray(q.reshape(n, self.heads, head).transpose(1, 0, 2)) * scale
            o = np.empty((self.heads, n, head), dtype=np.float32)
            for heard, nodes in sources:
                keys, values = memories[heard][i]
                o[:, nodes] = _softmax_rows(q[:, nodes] @ keys) @ values
            o = o.transpose(1, 0, 2).reshape(n, self.width)
            x = x + o @ w[p + "attention/linear_2/weight"] + w[p + "attention/linear_2/bias"]
            h = _layer_norm(x, w[p + "ffn/layer_norm/gamma"], w[p + "ffn/layer_norm/beta"])
            x = x + _gelu(h @ w[p + "ffn/linear_0/weight"] + w[p + "ffn/linear_0/bias"]) \
                @ w[p + "ffn/linear_1/weight"] + w[p + "ffn/linear_1/bias"]
        return _layer_norm(x, *self.final)
