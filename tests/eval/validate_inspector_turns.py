#!/usr/bin/env python3
"""Static checks for tests/eval/inspector_turns.json (no assistant needed).

Usage (from the repository root):
    python3 tests/eval/validate_inspector_turns.py

Checks: the file parses and follows the format; every turn has an expectation and an
answer_lang; every `opens`/`asks_about` KVK is in the register; names given in
answer_contains of an opening turn belong to that company; finding words occur in the
inspector's sentence; findings_total agrees with the findings dictated so far; report turns
name the company and a word of every finding; every
figure in answer_contains/answer_contains_any of a question with `cites` occurs in the summary
of a corpus article whose source/citation contains a cited substring. Prints coverage counts.
Exit code 1 on any error.
"""
import argparse, json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

ALLOWED = {"opens", "opens_nothing", "asks_about", "not_in_register", "finding", "no_finding",
           "findings_total", "answer_contains", "answer_contains_any", "cites", "answer_lang",
           "report", "report_contains"}
THEMES = {"company-start", "haccp-temperature", "allergens", "hygiene-building", "pests",
          "follow-up", "report", "mixed"}


def norm(s):
    s = s.lower().replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ")
    s = re.sub(r"\s+", " ", s)
    s = re.sub(r"\s*°\s*c\b", "°c", s)
    s = re.sub(r"\s*graden\b", "°c", s)
    return s


def load_register():
    """{kvk: (names incl. trade names, city)} from the demo register."""
    reg = {}
    for c in json.load(open(os.path.join(ROOT, "data", "companies.json"), encoding="utf-8")):
        reg[c["kvk"]] = ([c["name"]] + c.get("trade_names", []), c.get("address", {}).get("city", ""))
    return reg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=os.path.join(HERE, "inspector_turns.json"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "data", "regulations.json"))
    a = ap.parse_args()

    errors, notes = [], []
    raw = open(a.file, encoding="utf-8").read()
    doc = json.loads(raw)
    reg = load_register()
    corpus = json.load(open(a.corpus, encoding="utf-8"))

    if doc.get("version") != 1 or not isinstance(doc.get("conversations"), list):
        errors.append("top level must have version 1 and a conversations list")

    def arts_for(cites):
        return [x for x in corpus if any(c.lower() in (x["source"] + " " + x["citation"]).lower() for c in cites)]

    stats = Counter()
    themes, lang_turns, report_wordings, finding_says = Counter(), Counter(), set(), []
    cited_q, cited_q_en = 0, 0
    ids = set()
    for conv in doc["conversations"]:
        cid = conv.get("id")
        if cid in ids:
            errors.append(f"duplicate id {cid}")
        ids.add(cid)
        if conv.get("theme") not in THEMES:
            errors.append(f"{cid}: unknown theme {conv.get('theme')}")
        if conv.get("lang") not in ("nl", "en"):
            errors.append(f"{cid}: lang must be nl or en")
        themes[conv.get("theme")] += 1
        open_kvk, nfind, conv_findings = None, 0, []
        for i, t in enumerate(conv.get("turns", [])):
            where = f"{cid}#{i+1}"
            say, e = t.get("say", ""), t.get("expect", {})
            if not say.strip():
                errors.append(f"{where}: empty say")
            unk = set(e) - ALLOWED
            if unk:
                errors.append(f"{where}: unknown expect keys {unk}")
            if not (set(e) - {"answer_lang"}):
                errors.append(f"{where}: no expectation besides answer_lang")
            if e.get("answer_lang") not in ("nl", "en"):
                errors.append(f"{where}: answer_lang missing/invalid")
            lang_turns[e.get("answer_lang")] += 1
            stats["turns"] += 1
            if "finding" in e and e.get("no_finding"):
                errors.append(f"{where}: finding and no_finding together")
            if "opens" in e and (e.get("opens_nothing") or e.get("asks_about") or e.get("not_in_register")):
                errors.append(f"{where}: opens contradicts opens_nothing/asks_about/not_in_register")
            for k in ([e["opens"]] if "opens" in e else []) + e.get("asks_about", []):
                if k not in reg:
                    errors.append(f"{where}: KVK {k} not in register")
            if "asks_about" in e and not (1 <= len(e["asks_about"]) <= 3):
                errors.append(f"{where}: asks_about must list 1-3 candidates")
            if "opens" in e:
                open_kvk = e["opens"]
                stats["opens"] += 1
                names, city = reg.get(open_kvk, ([], ""))
                for s_ in e.get("answer_contains", []):
                    if re.fullmatch(r"\d{8}", s_):
                        if s_ != open_kvk:
                            errors.append(f"{where}: answer_contains KVK {s_} != opens {open_kvk}")
                    elif s_ != city and not any(s_.lower() in n.lower() for n in names):
                        errors.append(f"{where}: {s_!r} is neither a name nor the city of {open_kvk}")
            if e.get("asks_about"):
                stats["asks_about"] += 1
            if e.get("not_in_register"):
                stats["not_in_register"] += 1
            if "finding" in e:
                nfind += 1
                words = e["finding"]
                if not 1 <= len(words) <= 3:
                    errors.append(f"{where}: finding must have 1-3 words")
                for w in words:
                    if w != w.lower() or w not in say.lower():
                        errors.append(f"{where}: finding word {w!r} not (lower case) in say")
                conv_findings.append(say)
                finding_says.append((say, e["answer_lang"], "?" in say))
            if "findings_total" in e and e["findings_total"] != nfind:
                errors.append(f"{where}: findings_total {e['findings_total']} but {nfind} findings dictated")
            if e.get("report"):
                stats["reports"] += 1
                report_wordings.add(say.strip().lower())
                rc = [r.lower() for r in e.get("report_contains", [])]
                if "findings_total" not in e:
                    errors.append(f"{where}: report turn without findings_total")
                if not open_kvk or not any(any(r in n.lower() for r in rc) for n in reg[open_kvk][0]):
                    errors.append(f"{where}: report_contains lacks the company name")
                for fs in conv_findings:
                    if not any(r in fs.lower() for r in rc):
                        errors.append(f"{where}: report_contains has no word of finding {fs!r}")
                if not 2 <= len(conv_findings) <= 5:
                    errors.append(f"{where}: report after {len(conv_findings)} findings (want 2-5)")
            # corpus check for cited questions
            if "cites" in e:
                arts = arts_for(e["cites"])
                for c in e["cites"]:
                    if not arts_for([c]):
                        errors.append(f"{where}: cites {c!r} matches no corpus source/citation")
                text = " ".join(norm(x["summary"]) for x in arts)
                figs = [s for s in e.get("answer_contains", []) if re.search(r"\d", s)]
                for s in figs:
                    if norm(s) not in text:
                        errors.append(f"{where}: figure {s!r} not in summaries of {e['cites']}")
                has_fig = bool(figs)
                for alts in e.get("answer_contains_any", []):
                    dig = [s for s in alts if re.search(r"\d", s)]
                    if dig:
                        has_fig = True
                        if not any(norm(s) in text for s in dig):
                            errors.append(f"{where}: none of {dig} in summaries of {e['cites']}")
                    elif e["answer_lang"] == "nl" and not any(norm(s) in text for s in alts):
                        notes.append(f"{where}: key fact {alts} not literally in cited summaries")
                keyfact = bool(e.get("answer_contains") or e.get("answer_contains_any"))
                if keyfact:
                    cited_q += 1
                    if e["answer_lang"] == "en":
                        cited_q_en += 1
                    stats["cited_with_figure" if has_fig else "cited_with_keyfact"] += 1
        stats["conversations"] += 1

    # phrasing categories (heuristic)
    cats = Counter()
    for s, lang, q in finding_says:
        l = s.lower()
        if q: cats["finding+question"] += 1
        if re.match(r"(bevinding:|finding:)", l): cats["marker Bevinding:/Finding:"] += 1
        elif l.startswith("ik constateer"): cats["marker Ik constateer"] += 1
        elif l.startswith("ik zie"): cats["marker Ik zie"] += 1
        elif l.startswith("geconstateerd"): cats["marker Geconstateerd"] += 1
        elif l.startswith("i found"): cats["marker I found"] += 1
        elif l.startswith(("ik meet", "ik tel")): cats["Ik meet / Ik tel"] += 1
        if re.search(r"\bgeen\b.*\baanwezig\b", l): cats["geen … aanwezig"] += 1
        if "ontbre" in l: cats["ontbreekt/ontbreken"] += 1
        if "niet bijgehouden" in l: cats["niet bijgehouden"] += 1
        if re.search(r"-?\d+([,.]\d+)?\s*(°\s*c|graden)", l): cats["measured temperature"] += 1
        if "te gebruiken tot" in l or "datum" in l: cats["date / use-by"] += 1
        if re.search(r"\b\d+\s+(muizenkeutels|mouse droppings)|ongeveer \d+|about \d+", l): cats["count"] += 1
        if lang == "en": cats["English"] += 1

    print(f"conversations: {stats['conversations']}, turns: {stats['turns']}")
    print(f"turns by answer_lang: {dict(lang_turns)} "
          f"({100*lang_turns['nl']/max(1,stats['turns']):.0f}% nl)")
    print(f"conversations by theme: {dict(themes)}")
    print(f"opens: {stats['opens']}, asks_about: {stats['asks_about']}, not_in_register: {stats['not_in_register']}")
    print(f"finding turns: {len(finding_says)}, distinct phrasings: {len(set(s for s, _, _ in finding_says))}")
    print(f"finding phrasing categories: {dict(cats)}")
    print(f"questions with cites + key fact: {cited_q} (English: {cited_q_en}); with a figure: {stats['cited_with_figure']}")
    print(f"report turns: {stats['reports']}, distinct wordings: {len(report_wordings)}")
    for n in notes:
        print("note:", n)
    for er in errors:
        print("ERROR:", er)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
