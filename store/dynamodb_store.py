"""Games in one DynamoDB table: the store for the Alexa skill on AWS Lambda.

Key schema (string keys `pk`, `sk`; see docs/store.md):

    pk = "GAME#<id>"  sk = "META"           the game: setup (JSON string), version, finished,
                                            created_at, updated_at, expires_at once finished
    pk = "GAME#<id>"  sk = "LOG#00000042"   entry 42: entry (JSON string), seq
    pk = "PTR#<key>"  sk = "PTR"            a pointer: game_id
    pk = "CNT#<key>"  sk = "CNT"            a counter: count, resets_at, expires_at (TTL)

`append` is one TransactWriteItems: the META update is conditional on the version the caller
read (and on the game not being finished), the LOG put on its item not existing yet. Either
both happen or neither, so of two writers at the same version exactly one wins. botocore
gives every TransactWriteItems call a ClientRequestToken and reuses it on its own retries,
so a retried request whose first attempt did commit does not turn into a false Conflict.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterator
from typing import Any

from botocore.exceptions import ClientError

from .base import (
    Clock,
    Conflict,
    GameExists,
    GameFinished,
    GameNotFound,
    Pointers,
    PointerTaken,
    StoredGame,
    StoreError,
    Tally,
    check_claims,
    check_count,
    check_game_id,
    check_pointers,
    check_swap,
    check_version,
    dump_document,
    load_document,
)

META = "META"
POINTER = "PTR"
COUNTER = "CNT"
# DynamoDB's limit on the items of one TransactWriteItems
MAX_TRANSACTION_ITEMS = 100
DEFAULT_TTL_DAYS = 30.0
DAY_S = 86_400

# Every attribute goes through a placeholder: several of our names ("version", "setup"...)
# may be DynamoDB reserved words, and one rule is simpler than a list to keep up to date.
NAMES = {
    "#pk": "pk",
    "#sk": "sk",
    "#game_id": "game_id",
    "#setup": "setup",
    "#version": "version",
    "#finished": "finished",
    "#created": "created_at",
    "#updated": "updated_at",
    "#expires": "expires_at",
    "#count": "count",
    "#resets": "resets_at",
}


def _game_pk(game_id: str) -> str:
    return f"GAME#{game_id}"


def _log_sk(seq: int) -> str:
    return f"LOG#{seq:08d}"


def _num(value: float) -> dict[str, str]:
    # repr() of a float round-trips exactly, and DynamoDB keeps 38 significant digits.
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _names(expression: str) -> dict[str, str]:
    """Only the placeholders an expression uses: DynamoDB rejects unused ones."""
    return {k: v for k, v in NAMES.items() if k in expression}


def _is_resource(obj: Any) -> bool:
    return hasattr(getattr(obj, "meta", None), "client")


def create_table(client_or_resource: Any, name: str, *, wait: bool = True) -> str:
    """Create the store's table (on-demand billing, TTL on `expires_at`); for tests and local use.

    On AWS the SAM template creates the same table; this mirrors it.
    """
    client = client_or_resource
    if _is_resource(client):
        client = client.meta.client
    client.create_table(
        TableName=name,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    if wait:
        client.get_waiter("table_exists").wait(
            TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60}
        )
    client.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"},
    )
    return name


def make_client(region: str | None = None, endpoint_url: str | None = None) -> Any:
    """A DynamoDB client from a fresh boto3 session.

    A fresh session (not boto3's module-level default) reads the environment now, so the
    region and credentials are the ones in effect when the store is opened. With no
    `endpoint_url`, botocore itself honours AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL.
    """
    import boto3

    session = boto3.session.Session()
    return session.client(
        "dynamodb",
        region_name=region or session.region_name or "us-east-1",
        endpoint_url=endpoint_url,
    )


class DynamoDBStore:
    def __init__(
        self,
        table: str,
        *,
        client: Any = None,
        region: str | None = None,
        endpoint_url: str | None = None,
        ttl_days: float = DEFAULT_TTL_DAYS,
        clock: Clock = time.time,
    ) -> None:
        if not table:
            raise ValueError("a DynamoDB table name is required")
        self.table = table
        self.ttl_days = ttl_days
        self._clock = clock
        # boto3 clients are thread-safe, so one per store serves every Flask thread.
        self._owns_client = client is None
        self._client = client if client is not None else make_client(region, endpoint_url)

    # -- plumbing ---------------------------------------------------------------------------

    def _fail(self, exc: ClientError) -> StoreError:
        if _code(exc) == "ResourceNotFoundException":
            return StoreError(
                f"DynamoDB table {self.table!r} does not exist: deploy template.yaml or call "
                "store.dynamodb_store.create_table()"
            )
        return StoreError(f"DynamoDB: {exc}")

    def _meta_key(self, game_id: str) -> dict[str, Any]:
        return {"pk": {"S": _game_pk(game_id)}, "sk": {"S": META}}

    def _get_meta(self, game_id: str) -> dict[str, Any] | None:
        try:
            reply = self._client.get_item(
                TableName=self.table, Key=self._meta_key(game_id), ConsistentRead=True
            )
        except ClientError as exc:
            raise self._fail(exc) from exc
        return reply.get("Item")

    def _why_refused(self, game_id: str, version: int) -> StoreError:
        """After a conditional write failed: which of the conditions was it?"""
        meta = self._get_meta(game_id)
        if meta is None:
            return GameNotFound(game_id)
        if meta.get("finished", {}).get("BOOL"):
            return GameFinished(game_id)
        current = int(meta["version"]["N"])
        return Conflict(f"{game_id}: version is {current}, not {version}")

    def _query(self, pk: str) -> Iterator[dict[str, Any]]:
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": "pk"},
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ConsistentRead": True,
        }
        while True:
            try:
                page = self._client.query(**kwargs)
            except ClientError as exc:
                raise self._fail(exc) from exc
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _batch_write(self, requests: list[dict[str, Any]]) -> None:
        for start in range(0, len(requests), 25):  # BatchWriteItem's limit
            pending: dict[str, Any] = {self.table: requests[start : start + 25]}
            for attempt in range(8):
                try:
                    reply = self._client.batch_write_item(RequestItems=pending)
                except ClientError as exc:
                    raise self._fail(exc) from exc
                pending = reply.get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(0.05 * 2**attempt)  # throttled: back off, then resend the rest
            else:
                raise StoreError(f"DynamoDB kept refusing a batch write to {self.table!r}")

    # -- games ------------------------------------------------------------------------------

    def create(self, game_id: str, setup: dict[str, Any], *,
               bind: Pointers | None = None,
               claim: Collection[str] = ()) -> StoredGame:
        check_game_id(game_id)
        text = dump_document(setup, "setup")
        pointers = check_pointers(bind)
        claimed = check_claims(pointers, claim)
        now = self._clock()
        item = {
            **self._meta_key(game_id),
            "game_id": {"S": game_id},
            "setup": {"S": text},
            "version": {"N": "0"},
            "finished": {"BOOL": False},
            "created_at": _num(now),
            "updated_at": _num(now),
        }
        put = {
            "TableName": self.table,
            "Item": item,
            "ConditionExpression": "attribute_not_exists(#pk)",
            "ExpressionAttributeNames": {"#pk": "pk"},
        }
        try:
            if pointers:
                # one transaction: the game and the pointers naming it, or neither
                items = self._pointer_items(pointers)
                for key, item in zip(pointers, items, strict=True):
                    if key in claimed:  # only if unset: a taken one cancels the whole write
                        item["Put"]["ConditionExpression"] = "attribute_not_exists(#pk)"
                        item["Put"]["ExpressionAttributeNames"] = {"#pk": "pk"}
                self._client.transact_write_items(TransactItems=[{"Put": put}, *items])
            else:
                self._client.put_item(**put)
        except ClientError as exc:
            code = _code(exc)
            reasons = [r.get("Code", "None")
                       for r in exc.response.get("CancellationReasons", [])]
            if code == "ConditionalCheckFailedException" or (
                    code == "TransactionCanceledException"
                    and reasons[:1] == ["ConditionalCheckFailed"]):
                raise GameExists(game_id) from None
            if code == "TransactionCanceledException" and "ConditionalCheckFailed" in reasons:
                taken = list(pointers)[reasons.index("ConditionalCheckFailed") - 1]
                raise PointerTaken(taken) from None
            if code == "TransactionCanceledException" and "TransactionConflict" in reasons:
                raise StoreError(f"{game_id}: a pointer was being written by another "
                                 "transaction") from None
            raise self._fail(exc) from exc
        return StoredGame(game_id, load_document(text), [], 0, False, now, now)

    def append(self, game_id: str, version: int, entry: dict[str, Any], *,
               bind: Pointers | None = None) -> int:
        return self.extend(game_id, version, [entry], bind=bind)

    def extend(self, game_id: str, version: int, entries: list[dict[str, Any]], *,
               bind: Pointers | None = None) -> int:
        """`append` of several entries at once: one transaction, all or none."""
        check_game_id(game_id)
        check_version(version)
        texts = [dump_document(entry, "entry") for entry in entries]
        pointers = check_pointers(bind)
        if not texts:
            raise ValueError("extend needs at least one entry")
        if 1 + len(texts) + len(pointers) > MAX_TRANSACTION_ITEMS:
            raise ValueError(f"at most {MAX_TRANSACTION_ITEMS - 1} entries and pointers "
                             "in one write")
        update_expr = "SET #version = :next, #updated = :now"
        condition = "#version = :v AND #finished = :false"
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": self.table,
                            "Key": self._meta_key(game_id),
                            "UpdateExpression": update_expr,
                            "ConditionExpression": condition,
                            "ExpressionAttributeNames": _names(update_expr + condition),
                            "ExpressionAttributeValues": {
                                ":v": _num(version),
                                ":next": _num(version + len(texts)),
                                ":now": _num(self._clock()),
                                ":false": {"BOOL": False},
                            },
                        }
                    },
                    *(
                        {
                            "Put": {
                                "TableName": self.table,
                                "Item": {
                                    "pk": {"S": _game_pk(game_id)},
                                    "sk": {"S": _log_sk(version + n)},
                                    "seq": _num(version + n),
                                    "entry": {"S": text},
                                },
                                "ConditionExpression": "attribute_not_exists(#pk)",
                                "ExpressionAttributeNames": {"#pk": "pk"},
                            }
                        }
                        for n, text in enumerate(texts)
                    ),
                    # unconditional: they can only cancel the transaction through a
                    # TransactionConflict, which is read as a Conflict (retry)
                    *self._pointer_items(pointers),
                ]
            )
        except ClientError as exc:
            raise self._append_refused(exc, game_id, version, len(texts)) from None
        return version + len(texts)

    def _pointer_items(self, pointers: dict[str, str | None]) -> list[dict[str, Any]]:
        """TransactWriteItems entries setting or removing pointers (see `bind`)."""
        items: list[dict[str, Any]] = []
        for key, game_id in pointers.items():
            item_key = _pointer_key(key)
            if game_id is None:
                items.append({"Delete": {"TableName": self.table, "Key": item_key}})
            else:
                items.append({"Put": {"TableName": self.table,
                                      "Item": {**item_key, "game_id": {"S": game_id}}}})
        return items

    def _append_refused(self, exc: ClientError, game_id: str, version: int,
                        count: int = 1) -> StoreError:
        code = _code(exc)
        if code == "TransactionConflictException":
            return Conflict(f"{game_id}: another write was in progress")
        if code != "TransactionCanceledException":
            return self._fail(exc)
        reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
        meta_reason = reasons[0] if reasons else "ConditionalCheckFailed"
        log_reasons = reasons[1:1 + count]
        if meta_reason == "ConditionalCheckFailed":
            return self._why_refused(game_id, version)
        if "TransactionConflict" in reasons:
            # A concurrent transaction touched the same item; DynamoDB's answer is "retry",
            # and so is ours.
            return Conflict(f"{game_id}: another write was in progress")
        if "ConditionalCheckFailed" in log_reasons:
            # META says the version is free but the LOG item exists: only left-overs of an
            # interrupted delete of a game with the same id can do this.
            stray = version + log_reasons.index("ConditionalCheckFailed")
            return StoreError(f"{game_id}: stray log item {_log_sk(stray)} blocks the log")
        return StoreError(f"{game_id}: append cancelled: {reasons}")

    def load(self, game_id: str) -> StoredGame:
        check_game_id(game_id)
        meta: dict[str, Any] | None = None
        logs: dict[int, str] = {}
        for item in self._query(_game_pk(game_id)):
            sk = item["sk"]["S"]
            if sk == META:
                meta = item
            elif sk.startswith("LOG#"):
                logs[int(item["seq"]["N"])] = item["entry"]["S"]
        if meta is None:
            raise GameNotFound(game_id)
        version = int(meta["version"]["N"])
        # A Query is not a snapshot: it reads each item committed-as-of when it gets there,
        # so an append committing meanwhile may show its META but not its LOG item (fetch
        # it) or its LOG item but not its META (ignore it: META's version is the truth).
        for seq in range(version):
            if seq not in logs:
                logs[seq] = self._get_log(game_id, seq)
        return StoredGame(
            game_id=game_id,
            setup=load_document(meta["setup"]["S"]),
            entries=[load_document(logs[seq]) for seq in range(version)],
            version=version,
            finished=bool(meta["finished"]["BOOL"]),
            created_at=float(meta["created_at"]["N"]),
            updated_at=float(meta["updated_at"]["N"]),
        )

    def tail(self, game_id: str, since: int) -> tuple[int, list[dict[str, Any]]]:
        """The version and the entries from `since` to it: META, then a Query of the LOG
        items from `since` on (META's version is the truth, as in `load`)."""
        check_game_id(game_id)
        check_version(since)
        meta = self._get_meta(game_id)
        if meta is None:
            raise GameNotFound(game_id)
        version = int(meta["version"]["N"])
        logs: dict[int, str] = {}
        if version > since:
            kwargs: dict[str, Any] = {
                "TableName": self.table,
                "KeyConditionExpression": "#pk = :pk AND #sk BETWEEN :from AND :to",
                "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
                "ExpressionAttributeValues": {":pk": {"S": _game_pk(game_id)},
                                              ":from": {"S": _log_sk(since)},
                                              ":to": {"S": _log_sk(version - 1)}},
                "ConsistentRead": True,
            }
            while True:
                try:
                    page = self._client.query(**kwargs)
                except ClientError as exc:
                    raise self._fail(exc) from exc
                for item in page.get("Items", []):
                    logs[int(item["seq"]["N"])] = item["entry"]["S"]
                if "LastEvaluatedKey" not in page:
                    break
                kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        for seq in range(since, version):
            if seq not in logs:
                logs[seq] = self._get_log(game_id, seq)
        return version, [load_document(logs[seq]) for seq in range(since, version)]

    def _get_log(self, game_id: str, seq: int) -> str:
        try:
            reply = self._client.get_item(
                TableName=self.table,
                Key={"pk": {"S": _game_pk(game_id)}, "sk": {"S": _log_sk(seq)}},
                ConsistentRead=True,
            )
        except ClientError as exc:
            raise self._fail(exc) from exc
        if "Item" not in reply:
            raise StoreError(f"{game_id}: log entry {seq} is missing")
        return str(reply["Item"]["entry"]["S"])

    def replace_setup(self, game_id: str, version: int, setup: dict[str, Any]) -> int:
        check_game_id(game_id)
        check_version(version)
        text = dump_document(setup, "setup")
        update_expr = "SET #setup = :setup, #updated = :now"
        condition = "#version = :v AND #finished = :false"
        try:
            self._client.update_item(
                TableName=self.table,
                Key=self._meta_key(game_id),
                UpdateExpression=update_expr,
                ConditionExpression=condition,
                ExpressionAttributeNames=_names(update_expr + condition),
                ExpressionAttributeValues={
                    ":setup": {"S": text},
                    ":now": _num(self._clock()),
                    ":v": _num(version),
                    ":false": {"BOOL": False},
                },
            )
        except ClientError as exc:
            if _code(exc) == "ConditionalCheckFailedException":
                raise self._why_refused(game_id, version) from None
            if _code(exc) == "TransactionConflictException":
                raise Conflict(f"{game_id}: another write was in progress") from None
            raise self._fail(exc) from exc
        return version

    def finish(self, game_id: str) -> None:
        """Seal the log and schedule the whole game (META and every LOG item) for expiry.

        TTL works per item, so every item gets `expires_at`; sealing first (appends check
        `finished`) fixes the set of LOG items before they are stamped. Calling it again
        re-stamps, so an interrupted finish is completed by repeating it.
        """
        check_game_id(game_id)
        now = self._clock()
        expires = int(now + self.ttl_days * DAY_S)
        update_expr = "SET #finished = :true, #updated = :now, #expires = :expires"
        condition = "attribute_exists(#pk)"
        for attempt in range(5):
            try:
                self._client.update_item(
                    TableName=self.table,
                    Key=self._meta_key(game_id),
                    UpdateExpression=update_expr,
                    ConditionExpression=condition,
                    ExpressionAttributeNames=_names(update_expr + condition),
                    ExpressionAttributeValues={
                        ":true": {"BOOL": True},
                        ":now": _num(now),
                        ":expires": _num(expires),
                    },
                )
                break
            except ClientError as exc:
                if _code(exc) == "ConditionalCheckFailedException":
                    raise GameNotFound(game_id) from None
                if _code(exc) != "TransactionConflictException" or attempt == 4:
                    raise self._fail(exc) from exc
                time.sleep(0.05 * 2**attempt)  # an append is committing; finish has no version
        stamped = [
            {"PutRequest": {"Item": {**item, "expires_at": _num(expires)}}}
            for item in self._query(_game_pk(game_id))
            if item["sk"]["S"] != META
        ]
        self._batch_write(stamped)

    def list_games(self, include_finished: bool = False) -> list[str]:
        """Every game, most recently updated first. A Scan: fine for the few games a skill
        keeps (finished ones expire); a large deployment would add an index instead."""
        projection = "#game_id, #updated, #finished"
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "FilterExpression": "#sk = :meta",
            "ProjectionExpression": projection,
            "ExpressionAttributeNames": _names(projection + " #sk"),
            "ExpressionAttributeValues": {":meta": {"S": META}},
            "ConsistentRead": True,
        }
        found: list[tuple[float, str]] = []
        while True:
            try:
                page = self._client.scan(**kwargs)
            except ClientError as exc:
                raise self._fail(exc) from exc
            for item in page.get("Items", []):
                if include_finished or not item["finished"]["BOOL"]:
                    found.append((float(item["updated_at"]["N"]), item["game_id"]["S"]))
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        found.sort(key=lambda pair: (-pair[0], pair[1]))
        return [game_id for _, game_id in found]

    def delete(self, game_id: str) -> None:
        """Remove the game. META goes first, so readers see the game vanish at once; the LOG
        items follow (an interruption leaves only unreachable LOG items behind)."""
        check_game_id(game_id)
        try:
            self._client.delete_item(TableName=self.table, Key=self._meta_key(game_id))
        except ClientError as exc:
            raise self._fail(exc) from exc
        self._batch_write(
            [
                {"DeleteRequest": {"Key": {"pk": item["pk"], "sk": item["sk"]}}}
                for item in self._query(_game_pk(game_id))
            ]
        )

    # -- pointers ---------------------------------------------------------------------------

    def bind(self, key: str, game_id: str | None) -> None:
        check_game_id(key)
        item_key = _pointer_key(key)
        try:
            if game_id is None:
                self._client.delete_item(TableName=self.table, Key=item_key)
            else:
                check_game_id(game_id)
                self._client.put_item(
                    TableName=self.table, Item={**item_key, "game_id": {"S": game_id}}
                )
        except ClientError as exc:
            raise self._fail(exc) from exc

    def version(self, game_id: str) -> int:
        """The game's version alone (one consistent GetItem of the META item)."""
        check_game_id(game_id)
        try:
            reply = self._client.get_item(
                TableName=self.table, Key=self._meta_key(game_id), ConsistentRead=True,
                ProjectionExpression="version",
            )
        except ClientError as exc:
            raise self._fail(exc) from exc
        item = reply.get("Item")
        if item is None:
            raise GameNotFound(game_id)
        return int(item["version"]["N"])

    def swap(self, key: str, expected: str | None, new: str | None) -> bool:
        """Set a pointer only if it still holds `expected` (None: only if unset); with `new`
        None, remove it only if it still holds `expected`."""
        check_game_id(key)
        check_swap(expected, new)
        item_key = _pointer_key(key)
        if expected is None:
            condition = "attribute_not_exists(pk)"
            values: dict[str, Any] = {}
        else:
            condition = "game_id = :expected"
            values = {":expected": {"S": expected}}
        conditional: dict[str, Any] = {"ConditionExpression": condition,
                                       **({"ExpressionAttributeValues": values} if values else {})}
        try:
            if new is None:
                self._client.delete_item(TableName=self.table, Key=item_key, **conditional)
            else:
                self._client.put_item(TableName=self.table,
                                      Item={**item_key, "game_id": {"S": new}}, **conditional)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise self._fail(exc) from exc
        return True

    def lookup(self, key: str) -> str | None:
        check_game_id(key)
        try:
            reply = self._client.get_item(
                TableName=self.table,
                Key=_pointer_key(key),
                ConsistentRead=True,
            )
        except ClientError as exc:
            raise self._fail(exc) from exc
        item = reply.get("Item")
        return None if item is None else str(item["game_id"]["S"])

    # -- counters ---------------------------------------------------------------------------

    def count(self, key: str, window: float, add: int = 1) -> Tally:
        """A counter with expiry (see `GameStore.count`), one item per counter: an atomic
        `ADD` while its window lasts; once the window is over, a conditional put starts it
        again (of two writers that find it over, one restarts it and the other adds to the
        new window). DynamoDB's TTL removes counters some time after `expires_at`."""
        check_game_id(key)
        check_count(window, add)
        item_key = {"pk": {"S": f"CNT#{key}"}, "sk": {"S": COUNTER}}
        now = self._clock()
        if add == 0:
            try:
                item = self._client.get_item(TableName=self.table, Key=item_key,
                                             ConsistentRead=True).get("Item")
            except ClientError as exc:
                raise self._fail(exc) from exc
            if item is None or float(item["resets_at"]["N"]) <= now:
                return Tally(0, now + window)
            return Tally(int(item["count"]["N"]), float(item["resets_at"]["N"]))
        resets = now + window
        for _ in range(8):
            update = "ADD #count :add SET #resets = if_not_exists(#resets, :resets), " \
                     "#expires = if_not_exists(#expires, :expires)"
            condition = "attribute_not_exists(#pk) OR #resets > :now"
            try:
                reply = self._client.update_item(
                    TableName=self.table, Key=item_key, UpdateExpression=update,
                    ConditionExpression=condition,
                    ExpressionAttributeNames=_names(update + condition),
                    ExpressionAttributeValues={
                        ":add": _num(add), ":resets": _num(resets), ":now": _num(now),
                        ":expires": _num(int(resets) + 1)},
                    ReturnValues="ALL_NEW")
                item = reply["Attributes"]
                return Tally(int(item["count"]["N"]), float(item["resets_at"]["N"]))
            except ClientError as exc:
                if _code(exc) not in ("ConditionalCheckFailedException",
                                      "TransactionConflictException"):
                    raise self._fail(exc) from exc
            # the window is over: start a new one, unless another writer just did
            condition = "#resets <= :now"
            try:
                self._client.put_item(
                    TableName=self.table,
                    Item={**item_key, "count": _num(add), "resets_at": _num(resets),
                          "expires_at": _num(int(resets) + 1)},
                    ConditionExpression=condition, ExpressionAttributeNames=_names(condition),
                    ExpressionAttributeValues={":now": _num(now)})
                return Tally(add, resets)
            except ClientError as exc:
                if _code(exc) not in ("ConditionalCheckFailedException",
                                      "TransactionConflictException"):
                    raise self._fail(exc) from exc
        raise StoreError(f"DynamoDB: the counter {key!r} kept changing under its writers")

    # -- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        # Nothing is buffered; closing only drops the HTTP connection pool, and only of a
        # client we made (a caller's client may serve others).
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> DynamoDBStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"DynamoDBStore({self.table!r})"


def _pointer_key(key: str) -> dict[str, Any]:
    """The DynamoDB key of pointer `key`."""
    return {"pk": {"S": f"PTR#{key}"}, "sk": {"S": POINTER}}
