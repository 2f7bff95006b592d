"""An account's currency code (ISO 4217) and time zone (IANA), as snapshot.json requires them.

Both are read by every figure of a case: the currency decides how money is written and which bars
apply, the time zone which day a moment falls on. `reviewtui check` and `reviewtui import` refuse a
code that is not an ISO 4217 currency and a time zone that is not an IANA zone name of the
Area/Location form (``Europe/Berlin``; ``UTC`` and ``Etc/...`` too). Abbreviations that zoneinfo
also loads (``EST``, ``CET``) are refused: they are fixed offsets or old rules, not where an
account is, and the ad platforms name zones as Area/Location.
"""

from __future__ import annotations

import difflib
import re
import zoneinfo
from functools import lru_cache

# ISO 4217 currency codes in use (the list of the ISO 4217 maintenance agency, 2024), with the
# codes of the funds and precious metals left out: no ad account reports in them.
ISO_4217 = frozenset({
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BGN", "BHD",
    "BIF", "BMD", "BND", "BOB", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHF", "CLP", "CNY",
    "COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP",
    "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS", "INR",
    "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT",
    "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR",
    "MVR", "MWK", "MXN", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK",
    "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD",
    "SHP", "SLE", "SLL", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP",
    "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU", "UZS", "VED", "VES", "VND", "VUV", "WST", "XAF",
    "XCD", "XCG", "XOF", "XPF", "YER", "ZAR", "ZMW", "ZWG", "ZWL",
})

_AREA_LOCATION = re.compile(r"^(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)"
                            r"/[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)?$")


def currency_code_problem(code: object) -> str | None:
    """Why ``code`` is not an account currency code, or None when it is one."""
    if isinstance(code, str) and code in ISO_4217:
        return None
    hint = ""
    if isinstance(code, str) and code.strip().upper() in ISO_4217:
        hint = f" (write it {code.strip().upper()!r})"
    return f"{code!r} is not an ISO 4217 currency code such as USD, EUR or JPY{hint}"


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def time_zone_problem(name: object) -> str | None:
    """Why ``name`` is not an account time zone, or None when it is an IANA Area/Location name (or UTC)."""
    if not isinstance(name, str):
        return f"{name!r} is not a time zone name such as Europe/Berlin"
    if name == "UTC":
        return None
    known = _zone_names()
    if _AREA_LOCATION.match(name) and (name in known if known else True):
        return None  # without a time zone database on the machine, the name's form is all there is to check
    close = difflib.get_close_matches(name, [z for z in known if "/" in z], n=1, cutoff=0.8)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (f"{name!r} is not an IANA time zone name of the form Area/Location, such as Europe/Berlin or "
            f"America/New_York{hint}")
