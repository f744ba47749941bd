#!/usr/bin/env python3
"""An independent verifier of vouch's event log, written from docs/event-log.md
("Re-implementing verification") alone, with the Python standard library only.

    python3 vouch_verify.py LOG [--key-file HMAC_KEY_JSON | --state XDG_STATE_HOME --repo DIR]
                                [--contract FILE]

Prints one JSON object: per-record results, the head, the first bad line, and
the receipt and VerifiedPatch checks (with a key file), plus the digest of a
contract file. tests/reimpl/reimpl_test.ts compares it with `vouch inspect`.
"""
import base64
import decimal
import hashlib
import hmac
import json
import os
import sys

GENESIS = "0" * 64
LOG_DOMAIN = b"vouch.log.v1\n"
RECEIPT_MAC_DOMAIN = b"vouch.receipt.mac.v1\n"
RECEIPT_CHAIN_DOMAIN = b"vouch.receipt.chain.v1\n"
PATCH_MAC_DOMAIN = b"vouch.verified_patch.mac.v1\n"
KEYID_DOMAIN = b"vouch.keyid.v1\n"
RECORD_KEYS = {"v", "seq", "ts", "task", "kind", "body", "prev", "hash"}


def es_number(x):
    """ECMAScript Number::toString, as RFC 8785 requires for numbers."""
    if isinstance(x, bool):
        raise ValueError("bool")
    if isinstance(x, int):
        x = float(x) if abs(x) >= 2**53 else x
        if isinstance(x, int):
            return str(x)
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError("not a JSON number")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    _, digits, exp = decimal.Decimal(repr(abs(x))).as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    exp += len("".join(map(str, digits))) - len(ds)
    k = len(ds)
    n = exp + k
    if k <= n <= 21:
        out = ds + "0" * (n - k)
    elif 0 < n <= 21:
        out = ds[:n] + "." + ds[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + ds
    else:
        e = n - 1
        es = ("+" if e > 0 else "-") + str(abs(e))
        out = ds + "e" + es if k == 1 else ds[0] + "." + ds[1:] + "e" + es
    return sign + out


def jcs(v):
    """RFC 8785 canonical JSON text of a parsed JSON value."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return es_number(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + jcs(v[k]) for k in keys) + "}"
    raise ValueError("not JSON")


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError("duplicate key")
        out[k] = v
    return out


def check_line(line):
    """(record, reason) for one line's bytes (without its newline)."""
    try:
        text = line.decode("utf-8")
        if text.startswith("\ufeff"):
            return None, "not_json"
        rec = json.loads(text, object_pairs_hook=no_duplicates)
    except ValueError as e:
        return None, "duplicate_key" if "duplicate" in str(e) else "not_json"
    if not isinstance(rec, dict) or set(rec) != RECORD_KEYS:
        return None, "schema"
    ok_int = lambda x, lo: isinstance(x, int) and not isinstance(x, bool) and lo <= x <= 2**53 - 1
    hex64 = lambda s: isinstance(s, str) and len(s) == 64 and all(c in "0123456789abcdef" for c in s)
    if not (rec["v"] == 1 and ok_int(rec["seq"], 1) and ok_int(rec["ts"], 0)
            and (rec["task"] is None or isinstance(rec["task"], str))
            and isinstance(rec["kind"], str) and hex64(rec["prev"]) and hex64(rec["hash"])):
        return None, "schema"
    try:
        if jcs(rec) != text:
            return None, "not_canonical"
    except ValueError:
        return None, "not_canonical"
    body = {k: v for k, v in rec.items() if k != "hash"}
    if sha256_hex(LOG_DOMAIN + jcs(body).encode("utf-8")) != rec["hash"]:
        return None, "bad_hash"
    return rec, None


def verify_log(data):
    records, results = [], []
    head = {"seq": 0, "hash": GENESIS}
    issue = None
    lines = data.split(b"\n")
    torn = lines.pop()  # after the last newline: empty, or a torn write
    for i, line in enumerate(lines, start=1):
        rec, reason = check_line(line)
        if reason is None and rec["seq"] != head["seq"] + 1:
            reason = "seq_gap"
        if reason is None and rec["prev"] != head["hash"]:
            reason = "broken_link"
        results.append({"line": i, "seq": rec["seq"] if rec else None, "ok": reason is None,
                        "hash": rec["hash"] if rec else None})
        if reason is not None:
            issue = {"line": i, "reason": reason}
            break
        records.append(rec)
        head = {"seq": rec["seq"], "hash": rec["hash"]}
    return records, results, head, issue, len(torn)


def load_key(path):
    f = json.load(open(path))
    assert f["v"] == 1 and f["type"] == "vouch-hmac-sha256"
    raw = base64.b64decode(f["key"])
    key_id = "hmac-sha256:" + sha256_hex(KEYID_DOMAIN + raw)[:16]
    return raw, key_id


def mac(raw, domain, value):
    return hmac.new(raw, domain + jcs(value).encode("utf-8"), hashlib.sha256).hexdigest()


def receipt_ok(raw, key_id, r):
    body = {k: v for k, v in r.items() if k != "mac"}
    return r.get("keyId") == key_id and hmac.compare_digest(mac(raw, RECEIPT_MAC_DOMAIN, body), r["mac"])


def receipt_digest(r):
    return "sha256:" + sha256_hex(jcs(r).encode("utf-8"))


def anchor_ok(anchor, by_seq):
    if anchor["seq"] == 0:
        return anchor["hash"] == GENESIS
    rec = by_seq.get(anchor["seq"])
    return rec is not None and rec["hash"] == anchor["hash"]


def verify_receipts(raw, key_id, records):
    by_seq = {r["seq"]: r for r in records}
    prev, verified = GENESIS, 0
    for rec in records:
        if rec["kind"] != "tool.receipt":
            continue
        r = rec["body"]
        if not receipt_ok(raw, key_id, r):
            return verified, {"code": "bad_mac", "seq": rec["seq"]}
        if r["prevReceipt"] != prev:
            return verified, {"code": "chain_mismatch", "seq": rec["seq"]}
        if r["anchor"]["seq"] >= rec["seq"]:
            return verified, {"code": "anchor_order", "seq": rec["seq"]}
        if not anchor_ok(r["anchor"], by_seq):
            return verified, {"code": "anchor_mismatch", "seq": rec["seq"]}
        body = {k: v for k, v in r.items() if k != "mac"}
        prev = sha256_hex(RECEIPT_CHAIN_DOMAIN + jcs(body).encode("utf-8"))
        verified += 1
    return verified, None


def verify_patches(raw, key_id, records):
    by_seq = {r["seq"]: r for r in records}
    verified, issue = 0, None
    for rec in records:
        if rec["kind"] != "verified_patch.minted":
            continue
        p = rec["body"]
        body = {k: v for k, v in p.items() if k != "mac"}
        digests = {receipt_digest(r) for r in p["receipts"]}
        ok = (p.get("keyId") == key_id
              and hmac.compare_digest(mac(raw, PATCH_MAC_DOMAIN, body), p["mac"])
              and all(receipt_ok(raw, key_id, r) and anchor_ok(r["anchor"], by_seq) for r in p["receipts"])
              and all(c["outcome"] == "pass" and c["receipt"] in digests for c in p["checks"])
              and len(p["checks"]) > 0
              and anchor_ok(p["logAnchor"], by_seq))
        if ok:
            verified += 1
        elif issue is None:
            issue = {"seq": rec["seq"]}
    return verified, issue


def main(argv):
    log = argv[1]
    opts = dict(zip(argv[2::2], argv[3::2]))
    records, results, head, issue, torn = verify_log(open(log, "rb").read())
    out = {"records": results, "head": head, "count": len(records), "issue": issue, "tornBytes": torn,
           "receipts": {"present": sum(r["kind"] == "tool.receipt" for r in records)},
           "patches": {"present": sum(r["kind"] == "verified_patch.minted" for r in records)}}
    if "--state" in opts and "--repo" in opts:
        # the default key path: $XDG_STATE_HOME/vouch/keys/<repo id>.hmac.json
        repo_id = sha256_hex(os.path.realpath(opts["--repo"]).encode("utf-8"))[:24]
        opts["--key-file"] = os.path.join(opts["--state"], "vouch", "keys", repo_id + ".hmac.json")
    if "--key-file" in opts:
        raw, key_id = load_key(opts["--key-file"])
        out["keyId"] = key_id
        v, i = verify_receipts(raw, key_id, records)
        out["receipts"].update({"verified": v, "issue": i})
        v, i = verify_patches(raw, key_id, records)
        out["patches"].update({"verified": v, "issue": i,
                               "contractDigests": [r["body"]["contractDigest"] for r in records
                                                   if r["kind"] == "verified_patch.minted"]})
    if "--contract" in opts:
        out["contractDigest"] = "sha256:" + sha256_hex(jcs(json.load(open(opts["--contract"]))).encode("utf-8"))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
