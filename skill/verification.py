"""Verifying that a request really comes from Alexa (ask-sdk-webservice-support).

Two things live here:

1. An import shim. ask-sdk-webservice-support validates certificate chains with
   certvalidator, which imports oscrypto; oscrypto 1.3.0 (its latest release) cannot read
   OpenSSL versions whose patch number has two digits ("OpenSSL 3.0.19") and refuses to
   import. The fix is in oscrypto's repository but unreleased, so for the duration of that
   one import we widen the version pattern it uses. Nothing else is changed.
2. `AlexaRequestVerifier`: the library's RequestVerifier (URL rules, signature over the raw
   body, SAN and validity of the signing certificate), with two seams: where the chain is
   fetched from and which roots are trusted. Production uses the defaults (Amazon's S3 URL
   and the system's roots); the tests pass their own root, trusted only inside the tests.
   The certificate URL is checked by `check_cert_url` first: the library normalises the
   path with `os.path.normpath` without decoding it, so
   `https://s3.amazonaws.com/echo.api/%2e%2e/evil/x.pem` passed its check while S3 serves
   `/evil/x.pem` for it, a file anyone could put there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

_OSCRYPTO_VERSION = "\\b(\\d\\.\\d\\.\\d[a-z]*)\\b"
_WIDER_VERSION = "\\b(\\d+\\.\\d+\\.\\d+[a-z]*)\\b"


def _import_verifier() -> Any:
    real_search = re.search

    def search(pattern: Any, string: Any, flags: int = 0) -> Any:
        if pattern == _OSCRYPTO_VERSION:
            pattern = _WIDER_VERSION
        return real_search(pattern, string, flags)

    re.search = search  # type: ignore[assignment]
    try:
        import oscrypto.asymmetric  # noqa: F401  (the import that needs the shim)
        from ask_sdk_webservice_support import verifier
    finally:
        re.search = real_search  # type: ignore[assignment]
    return verifier


verifier = _import_verifier()
RequestVerifier = verifier.RequestVerifier
TimestampVerifier = verifier.TimestampVerifier
VerificationException = verifier.VerificationException


CERT_PATH_PREFIX = "/echo.api/"  # case-sensitive, as Amazon's rules say


def check_cert_url(cert_url: str) -> None:
    """Refuse a signing-certificate URL whose path is not plainly under /echo.api/: any
    percent-encoding (Amazon's URLs have none; `%2e%2e` is a dot segment that S3 decodes
    after the library's check) or backslash."""
    try:
        path = urlsplit(cert_url).path
    except ValueError as problem:
        raise VerificationException("Signature Certificate URL is not a URL") from problem
    if "%" in path or "\\" in path:
        raise VerificationException("Signature Certificate URL has an encoded or escaped "
                                    "character in its path")
    if not path.startswith(CERT_PATH_PREFIX):
        raise VerificationException("Signature Certificate URL has invalid path: expecting "
                                    f"the path to start with {CERT_PATH_PREFIX}")


class AlexaRequestVerifier(RequestVerifier):  # type: ignore[misc,valid-type]
    def __init__(
        self,
        trust_roots: list[bytes] | None = None,
        fetch_chain: Callable[[str], bytes] | None = None,
    ):
        super().__init__()
        self._trust_roots = trust_roots
        self._fetch_chain = fetch_chain

    def _validate_certificate_url(self, cert_url: str) -> None:
        check_cert_url(cert_url)
        super()._validate_certificate_url(cert_url)

    def _load_cert_chain(self, cert_url: str) -> bytes:
        if self._fetch_chain is None:
            return super()._load_cert_chain(cert_url)
        if cert_url not in self._cert_cache:
            try:
                self._cert_cache[cert_url] = self._fetch_chain(cert_url)
            except (OSError, KeyError, ValueError) as problem:
                raise VerificationException("Unable to load certificate from URL", problem) \
                    from problem
        return self._cert_cache[cert_url]

    def _validate_cert_chain(self, cert_chain: bytes) -> None:
        if self._trust_roots is None:
            return super()._validate_cert_chain(cert_chain)
        from asn1crypto import pem
        from certvalidator import CertificateValidator, ValidationContext
        from certvalidator.errors import PathError, ValidationError

        try:
            end_cert = None
            intermediates = []
            for _, _, der in pem.unarmor(cert_chain, multiple=True):
                if end_cert is None:
                    end_cert = der
                else:
                    intermediates.append(der)
            context = ValidationContext(trust_roots=self._trust_roots)
            validator = CertificateValidator(end_cert, intermediates, validation_context=context)
            validator.validate_usage(key_usage={"digital_signature"})
        except (PathError, ValidationError, ValueError, TypeError) as problem:
            raise VerificationException("Certificate chain is not valid", problem) from problem
        return None
