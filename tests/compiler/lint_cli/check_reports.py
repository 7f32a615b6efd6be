#!/usr/bin/python3
"""tests/compiler/lint_cli/check_reports.py TEXT JSON SARIF [LINT_RULES_MD] — one lint run in its three formats.

Checks, with nothing but the standard library (no JSON Schema package, no network):
 - the JSON report's shape and counts;
 - the SARIF 2.1.0 log's shape: the required properties, only property names that the
   SARIF 2.1.0 schema defines for each object we write, enum values, 1-based regions,
   absolute rule helpUris into docs/lint-rules.md, ruleIndex agreeing with ruleId;
 - that the three formats report the same findings in the same order: each JSON diagnostic
   is a text header line `file:line:col: severity: message [rule]` (in order) and a SARIF
   result with the same rule, level, message, location (the URI decodes to the path given)
   and a region exactly when the diagnostic has a line;
 - with LINT_RULES_MD: each rule's helpUri fragment is the anchor of a heading there (as
   GitHub and other Markdown renderers make anchors from headings).
Prints one line per problem and exits 1 if there is any.
"""
import json
import re
import sys
import urllib.parse

problems = []


def check(condition, what):
    if not condition:
        problems.append(what)
    return condition


def keys_within(obj, allowed, where):
    check(isinstance(obj, dict), f"{where} is not an object")
    if isinstance(obj, dict):
        extra = set(obj) - set(allowed)
        check(not extra, f"{where}: properties SARIF 2.1.0 does not define there: {sorted(extra)}")


def is_absolute_uri(uri):
    return isinstance(uri, str) and urllib.parse.urlparse(uri).scheme != ""


def check_json(report):
    keys_within(report, {"tool", "version", "files", "errors", "warnings", "diagnostics"}, "json")
    check(report.get("tool") == "tartaros", "json: tool is not tartaros")
    for key in ("files", "errors", "warnings"):
        check(isinstance(report.get(key), int) and report[key] >= 0, f"json: {key} is not a count")
    diags = report.get("diagnostics", [])
    for i, d in enumerate(diags):
        where = f"json diagnostics[{i}]"
        check(set(d) == {"file", "line", "column", "severity", "rule", "message"}, f"{where}: keys {sorted(d)}")
        check(d["severity"] in ("error", "warning"), f"{where}: severity {d['severity']!r}")
        check(isinstance(d["line"], int) and d["line"] >= 0, f"{where}: line")
        check((d["line"] == 0) == (d["column"] == 0), f"{where}: a column without a line, or the reverse")
        check(isinstance(d["message"], str) and d["message"], f"{where}: empty message")
    for severity, key in (("error", "errors"), ("warning", "warnings")):
        check(sum(d["severity"] == severity for d in diags) == report.get(key), f"json: {key} is not the count")


def header(d):
    place = f"{d['file']}:{d['line']}:{d['column']}:" if d["line"] > 0 else f"{d['file']}:"
    rule = f" [{d['rule']}]" if d["rule"] else ""
    return f"{place} {d['severity']}: {d['message']}{rule}"


def check_text(text, report):
    lines = text.split("\n")
    at = 0
    for d in report["diagnostics"]:
        wanted = header(d)
        while at < len(lines) and lines[at] != wanted:
            at += 1
        if not check(at < len(lines), f"text: no line (in order) {wanted!r}"):
            return
        at += 1
    plural = lambda n, word: f"{n} {word}" + ("" if n == 1 else "s")
    summary = ", ".join([plural(report["files"], "file"), plural(report["errors"], "error"),
                         plural(report["warnings"], "warning")])
    check(lines[-2:] == [summary, ""], f"text: last line is not {summary!r}: {lines[-2:]!r}")


def check_rules(driver):
    rules = driver.get("rules", [])
    ids = [r.get("id") for r in rules]
    check(len(ids) == len(set(ids)), "sarif: duplicate rule ids")
    for i, rule in enumerate(rules):
        where = f"sarif rules[{i}]"
        keys_within(rule, {"id", "shortDescription", "defaultConfiguration", "helpUri"}, where)
        check(isinstance(rule.get("id"), str) and rule["id"], f"{where}: no id")
        keys_within(rule.get("shortDescription"), {"text"}, f"{where}.shortDescription")
        check(rule.get("shortDescription", {}).get("text"), f"{where}: empty shortDescription")
        keys_within(rule.get("defaultConfiguration"), {"level"}, f"{where}.defaultConfiguration")
        check(rule.get("defaultConfiguration", {}).get("level") in ("none", "note", "warning", "error"),
              f"{where}: defaultConfiguration.level")
        help_uri = rule.get("helpUri", "")
        check(is_absolute_uri(help_uri), f"{where}: helpUri is not an absolute URI: {help_uri!r}")
        check(help_uri.endswith(f"docs/lint-rules.md#{rule.get('id')}"), f"{where}: helpUri {help_uri!r}")
    return ids


def artifact_path(uri):
    parsed = urllib.parse.urlparse(uri)
    return urllib.parse.unquote(parsed.path, errors="surrogateescape") if parsed.scheme == "file" else \
        urllib.parse.unquote(uri, errors="surrogateescape")


def check_result(i, result, ids, d):
    where = f"sarif results[{i}]"
    keys_within(result, {"ruleId", "ruleIndex", "level", "message", "locations"}, where)
    check(result.get("level") == d["severity"], f"{where}: level {result.get('level')!r}, json {d['severity']!r}")
    keys_within(result.get("message"), {"text"}, f"{where}.message")
    check(result.get("message", {}).get("text") == d["message"], f"{where}: message differs from the json")
    check(result.get("ruleId", "") == d["rule"], f"{where}: ruleId differs from the json")
    if "ruleIndex" in result:
        index = result["ruleIndex"]
        check(isinstance(index, int) and 0 <= index < len(ids) and ids[index] == result.get("ruleId"),
              f"{where}: ruleIndex {index} does not name ruleId {result.get('ruleId')!r}")
    else:
        check(result.get("ruleId") not in ids, f"{where}: a registered ruleId without ruleIndex")
    locations = result.get("locations", [])
    if not check(len(locations) == 1, f"{where}: {len(locations)} locations"):
        return
    keys_within(locations[0], {"physicalLocation"}, f"{where}.locations[0]")
    physical = locations[0].get("physicalLocation", {})
    keys_within(physical, {"artifactLocation", "region"}, f"{where}.physicalLocation")
    keys_within(physical.get("artifactLocation"), {"uri"}, f"{where}.artifactLocation")
    uri = physical.get("artifactLocation", {}).get("uri", "")
    check(all(c.isascii() and c.isprintable() and c not in ' "#?' for c in uri), f"{where}: uri not encoded: {uri!r}")
    check(artifact_path(uri) == d["file"], f"{where}: uri {uri!r} is not the file {d['file']!r}")
    check(("region" in physical) == (d["line"] > 0), f"{where}: a region without a line, or the reverse")
    if "region" in physical:
        region = physical["region"]
        keys_within(region, {"startLine", "startColumn"}, f"{where}.region")
        check(region.get("startLine") == d["line"] and region.get("startColumn") == d["column"],
              f"{where}: region {region}, json {d['line']}:{d['column']}")


def check_sarif(log, report):
    keys_within(log, {"$schema", "version", "runs"}, "sarif")
    check(log.get("version") == "2.1.0", "sarif: version is not 2.1.0")
    check(is_absolute_uri(log.get("$schema")) and "sarif" in log["$schema"], "sarif: $schema")
    runs = log.get("runs", [])
    if not check(isinstance(runs, list) and len(runs) == 1, "sarif: not exactly one run"):
        return
    keys_within(runs[0], {"tool", "results"}, "sarif run")
    keys_within(runs[0].get("tool"), {"driver"}, "sarif tool")
    driver = runs[0].get("tool", {}).get("driver", {})
    keys_within(driver, {"name", "version", "informationUri", "rules"}, "sarif driver")
    check(driver.get("name") == "tartaros", "sarif: driver.name")
    check(driver.get("version") == report.get("version"), "sarif: driver.version differs from the json's")
    check(is_absolute_uri(driver.get("informationUri")), "sarif: informationUri is not an absolute URI")
    ids = check_rules(driver)
    results = runs[0].get("results", [])
    diags = report["diagnostics"]
    check(len(results) == len(diags), f"sarif: {len(results)} results, json: {len(diags)} diagnostics")
    for i, (result, d) in enumerate(zip(results, diags)):
        check_result(i, result, ids, d)
        check(not d["rule"] or d["rule"] in ids, f"json diagnostics[{i}]: rule {d['rule']!r} is not in the registry")


def heading_anchor(line):
    """The anchor a Markdown renderer gives a heading: lower case, punctuation dropped, spaces to '-'."""
    title = line.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")


def check_anchors(log, docs_path):
    with open(docs_path, encoding="utf-8") as f:
        anchors = {heading_anchor(line) for line in f if line.startswith("#")}
    for rule in log["runs"][0]["tool"]["driver"].get("rules", []):
        fragment = urllib.parse.urlparse(rule.get("helpUri", "")).fragment
        check(fragment in anchors, f"sarif rule {rule.get('id')!r}: no heading in {docs_path} for #{fragment}")


def main():
    text_path, json_path, sarif_path = sys.argv[1:4]
    with open(text_path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    with open(json_path, "rb") as f:
        report = json.loads(f.read().decode("utf-8"))
    with open(sarif_path, "rb") as f:
        log = json.loads(f.read().decode("utf-8"))
    check_json(report)
    if not problems:
        check_text(text, report)
        check_sarif(log, report)
    if not problems and len(sys.argv) > 4:
        check_anchors(log, sys.argv[4])
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
