#!/usr/bin/env python3
"""Static checks for the evaluation sets in tests/eval/ (no assistant needed).

Usage (from the repository root):
    python3 tests/eval/validate_inspector_turns.py            # all four files
    python3 tests/eval/validate_inspector_turns.py --file tests/eval/held_aside.json

Files: inspector_turns.json (the first set), inspector_turns_2.json (the second set, tuning part),
held_aside.json (the second set, held-aside part), tuning_4.json, tuning_5.json, tuning_6.json,
tuning_7.json, tuning_8.json, tuning_9.json, tuning_10.json and tuning_11.json (the fourth to eleventh
domain sets).

Checks: the file parses and follows the format; every turn has an expectation and an
answer_lang; every `opens`/`asks_about` KVK is in the register; names given in
answer_contains of an opening turn belong to that company; finding words occur in the
inspector's sentence; findings_total agrees with the findings dictated so far, and
inspection_findings_total with those dictated since the open company last changed; report turns
name the company and a word of every finding of the inspection; every figure in
answer_contains/answer_contains_any of a question with `cites`/`cites_any` occurs in the summary
of a corpus article whose source/citation contains a cited substring.
For the second set also: every conversation has a `kind` 1-10; finding_category values come from
the fixed list and match the number of findings of the turn; a correction's new value is in its
sentence and its old value in an earlier finding; report_not_contains / answer_not_contains do not
contradict the inspection's own findings or the open company's register entry; the distinctive
words of a `not_in_register` name are in no registered name, trade name, street or city (nor close
to one); not_covered turns cite nothing; the held-aside part uses no company of the tuning part.
Prints coverage counts. Exit code 1 on any error.
"""
import argparse, difflib, json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FILES = ["inspector_turns.json", "inspector_turns_2.json", "held_aside.json", "tuning_4.json", "tuning_5.json",
         "tuning_6.json", "tuning_7.json", "tuning_8.json", "tuning_9.json", "tuning_10.json",
         "tuning_11.json"]

ALLOWED = {"opens", "opens_nothing", "asks_about", "not_in_register", "finding", "no_finding",
           "findings_total", "answer_contains", "answer_contains_any", "cites", "answer_lang",
           "report", "report_contains",
           # second set (issue 32)
           "answer_not_contains", "findings", "finding_category", "finding_corrected",
           "inspection_findings_total", "cites_any", "cites_not", "not_covered", "report_declined",
           "no_report", "report_not_contains"}
THEMES = {"company-start", "haccp-temperature", "allergens", "hygiene-building", "pests",
          "follow-up", "report", "mixed"}
CATEGORIES = {"temperature", "hygiene", "pests", "allergens", "labelling", "shelf-life",
              "traceability", "building", "other"}
# Source substrings of the corpus; a not_covered answer contains none of them.
SOURCES = ["852/2004", "853/2004", "178/2002", "1169/2011", "2073/2005", "2017/625", "2017/2158",
           "Hygiënecode", "Warenwetbesluit", "Warenwet"]
# Words of a business name that may be shared with the register (trade, type, legal form).
GENERIC = {"bakkerij", "bakker", "restaurant", "snackbar", "slagerij", "slager", "visrokerij", "vishandel",
           "ijssalon", "lunchroom", "pizzeria", "kebab", "house", "grill", "grillroom", "eetcafé", "café",
           "cafe", "hotel", "toko", "supermarkt", "catering", "vleesgroothandel", "groothandel", "markt",
           "kaas", "broodjeszaak", "brunchcafé", "sushi", "foodtruck", "kantine", "stichting", "start",
           "inspectie", "inspection", "register", "restaurant"}


def norm(s):
    s = s.lower().replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ")
    s = re.sub(r"\s+", " ", s)
    s = re.sub(r"\s*°\s*c\b", "°c", s)
    s = re.sub(r"\s*graden\b", "°c", s)
    s = re.sub(r"\s*degrees\b", "°c", s)
    return s


def has_whole(text, s):
    """s occurs in text, not directly preceded or followed by a letter or digit (normalised)."""
    t, n = norm(text), norm(s)
    return re.search(r"(?<![0-9a-zà-ÿ])" + re.escape(n) + r"(?![0-9a-zà-ÿ])", t) is not None


def load_register():
    """{kvk: (names incl. trade names, city, full entry as lower-case text)}."""
    reg = {}
    for c in json.load(open(os.path.join(ROOT, "data", "companies.json"), encoding="utf-8")):
        reg[c["kvk"]] = ([c["name"]] + c.get("trade_names", []), c.get("address", {}).get("city", ""),
                         json.dumps(c, ensure_ascii=False).lower())
    return reg


def register_words():
    words = set()
    for c in json.load(open(os.path.join(ROOT, "data", "companies.json"), encoding="utf-8")):
        for n in [c["name"]] + c.get("trade_names", []) + [c["address"]["street"], c["address"]["city"]]:
            words |= set(re.findall(r"[a-zà-ÿ]+", n.lower()))
    return {w for w in words if len(w) >= 4}


def name_words(say):
    """Capitalised words of a sentence except its first word and a place after in/op/uit/te."""
    toks = re.findall(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'-]*", say)
    out = []
    for i, w in enumerate(toks):
        if i == 0 or not w[0].isupper() or len(w) < 4:
            continue
        if toks[i - 1].lower() in ("in", "op", "uit", "te"):
            continue
        out.append(w)
    return out


def check_file(path, reg, regwords, corpus, tuning_kvks=None):
    errors, notes = [], []
    doc = json.loads(open(path, encoding="utf-8").read())
    second = os.path.basename(path) != "inspector_turns.json"
    if doc.get("version") != 1 or not isinstance(doc.get("conversations"), list):
        errors.append("top level must have version 1 and a conversations list")

    def arts_for(cites):
        return [x for x in corpus if any(c.lower() in (x["source"] + " " + x["citation"]).lower() for c in cites)]

    stats = Counter()
    themes, kinds, lang_turns, report_wordings, finding_says = Counter(), Counter(), Counter(), set(), []
    keyuse = Counter()
    cited_q, cited_q_en = 0, 0
    ids, kvks = set(), set()
    for conv in doc["conversations"]:
        cid = conv.get("id")
        if cid in ids:
            errors.append(f"duplicate id {cid}")
        ids.add(cid)
        if conv.get("theme") not in THEMES:
            errors.append(f"{cid}: unknown theme {conv.get('theme')}")
        if conv.get("lang") not in ("nl", "en"):
            errors.append(f"{cid}: lang must be nl or en")
        if second and conv.get("kind") not in range(1, 11):
            errors.append(f"{cid}: kind must be 1..10")
        if "kind" in conv:
            kinds[conv["kind"]] += 1
        themes[conv.get("theme")] += 1
        open_kvk, nfind = None, 0
        insp_findings = []          # finding texts (sentence + corrections) of the open inspection
        for i, t in enumerate(conv.get("turns", [])):
            where = f"{cid}#{i+1}"
            say, e = t.get("say", ""), t.get("expect", {})
            keyuse.update(e.keys())
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
            new_find = ("finding" in e) + ("findings" in e) + ("finding_corrected" in e)
            if new_find > 1:
                errors.append(f"{where}: finding, findings and finding_corrected are exclusive")
            if ("finding" in e or "findings" in e) and e.get("no_finding"):
                errors.append(f"{where}: finding and no_finding together")
            if "opens" in e and (e.get("opens_nothing") or e.get("asks_about") or e.get("not_in_register")):
                errors.append(f"{where}: opens contradicts opens_nothing/asks_about/not_in_register")
            if sum(bool(e.get(k)) for k in ("report", "report_declined", "no_report")) > 1:
                errors.append(f"{where}: report, report_declined and no_report are exclusive")
            if e.get("not_covered") and (e.get("cites") or e.get("cites_any")):
                errors.append(f"{where}: not_covered with cites")
            for k in ([e["opens"]] if "opens" in e else []) + e.get("asks_about", []):
                if k not in reg:
                    errors.append(f"{where}: KVK {k} not in register")
                kvks.add(k)
            if "asks_about" in e and not (1 <= len(e["asks_about"]) <= 3):
                errors.append(f"{where}: asks_about must list 1-3 candidates")
            if "opens" in e:
                if e["opens"] != open_kvk:
                    insp_findings = []
                open_kvk = e["opens"]
                stats["opens"] += 1
                names, city, _ = reg.get(open_kvk, ([], "", ""))
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
                if "kind" in conv:
                    for w in name_words(say):
                        wl = w.lower()
                        if wl in GENERIC:
                            continue
                        close = [r for r in regwords if r == wl or (len(wl) >= 5 and (wl in r or r in wl))
                                 or difflib.SequenceMatcher(None, wl, r).ratio() >= 0.8]
                        if close:
                            errors.append(f"{where}: name word {w!r} is (close to) register word(s) {close}")
            # findings of this turn
            groups = []
            if "finding" in e:
                groups = [e["finding"]]
            elif "findings" in e:
                groups = e["findings"]
                if not isinstance(groups, list) or len(groups) < 2:
                    errors.append(f"{where}: findings must list at least two findings")
            for words in groups:
                if not 1 <= len(words) <= 3:
                    errors.append(f"{where}: a finding must have 1-3 words")
                for w in words:
                    if w != w.lower() or w not in say.lower():
                        errors.append(f"{where}: finding word {w!r} not (lower case) in say")
                nfind += 1
                insp_findings.append(say)
                finding_says.append((say, e["answer_lang"], "?" in say))
            if "finding_category" in e:
                cats = e["finding_category"]
                if len(cats) != len(groups):
                    errors.append(f"{where}: finding_category has {len(cats)} values for {len(groups)} findings")
                for ccat in cats:
                    if ccat not in CATEGORIES:
                        errors.append(f"{where}: unknown category {ccat!r}")
                stats["categorised findings"] += len(cats)
            if "finding_corrected" in e:
                fc = e["finding_corrected"]
                if set(fc) - {"contains", "not_contains"} or not fc.get("contains"):
                    errors.append(f"{where}: finding_corrected needs contains (and optional not_contains)")
                for s_ in fc.get("contains", []):
                    if norm(s_) not in norm(say):
                        errors.append(f"{where}: corrected value {s_!r} not in say")
                hit = None
                for s_ in fc.get("not_contains", []):
                    hits = [j for j, fs in enumerate(insp_findings) if has_whole(fs, s_)]
                    if not hits:
                        errors.append(f"{where}: old value {s_!r} is in no earlier finding of the inspection")
                    else:
                        hit = hits[-1]
                if not insp_findings:
                    errors.append(f"{where}: correction without an earlier finding")
                else:
                    j = hit if hit is not None else len(insp_findings) - 1
                    insp_findings[j] = insp_findings[j] + " || " + say
            if "findings_total" in e and e["findings_total"] != nfind:
                errors.append(f"{where}: findings_total {e['findings_total']} but {nfind} findings dictated")
            if "inspection_findings_total" in e and e["inspection_findings_total"] != len(insp_findings):
                errors.append(f"{where}: inspection_findings_total {e['inspection_findings_total']} but "
                              f"{len(insp_findings)} findings dictated at this company")
            # strings that must not appear
            own = " ".join(insp_findings)
            for s_ in e.get("answer_not_contains", []):
                if has_whole(own, s_) and not e.get("finding_corrected"):
                    # allowed only when the old value of a correction is meant
                    if not any("||" in fs and has_whole(fs.split("||")[0], s_) for fs in insp_findings):
                        errors.append(f"{where}: answer_not_contains {s_!r} is in this inspection's findings")
            if e.get("report"):
                stats["reports"] += 1
                report_wordings.add(say.strip().lower())
                rc = [r.lower() for r in e.get("report_contains", [])]
                if "findings_total" not in e and "inspection_findings_total" not in e:
                    errors.append(f"{where}: report turn without findings_total/inspection_findings_total")
                if not open_kvk or not any(any(r in n.lower() for r in rc) for n in reg[open_kvk][0]):
                    errors.append(f"{where}: report_contains lacks the company name")
                for fs in insp_findings:
                    if not any(norm(r) in norm(fs) for r in rc):
                        errors.append(f"{where}: report_contains has no word of finding {fs!r}")
                if not 2 <= len(insp_findings) <= 5:
                    errors.append(f"{where}: report after {len(insp_findings)} findings (want 2-5)")
                entry = reg.get(open_kvk, ("", "", ""))[2]
                for s_ in e.get("report_not_contains", []):
                    # the old value of a corrected finding may occur in its sentences
                    old_only = any("||" in fs and has_whole(fs.split("||")[0], s_) for fs in insp_findings)
                    if has_whole(own, s_) and not old_only:
                        errors.append(f"{where}: report_not_contains {s_!r} is in this inspection's findings")
                    if has_whole(entry, s_):
                        errors.append(f"{where}: report_not_contains {s_!r} is in the register entry of {open_kvk}")
            elif e.get("report_not_contains") or e.get("report_contains"):
                errors.append(f"{where}: report_contains/report_not_contains without report")
            if e.get("report_declined"):
                stats["report_declined"] += 1
            # corpus check for cited questions
            alts = list(e.get("cites", []))
            for group in e.get("cites_any", []):
                alts += group
            if alts:
                for c in alts:
                    if not arts_for([c]):
                        errors.append(f"{where}: cites {c!r} matches no corpus source/citation")
                arts = arts_for(alts)
                text = " ".join(norm(x["summary"]) for x in arts)
                figs = [s for s in e.get("answer_contains", []) if re.search(r"\d", s)]
                for s in figs:
                    if norm(s) not in text:
                        errors.append(f"{where}: figure {s!r} not in summaries of {alts}")
                has_fig = bool(figs)
                for group in e.get("answer_contains_any", []):
                    dig = [s for s in group if re.search(r"\d", s)]
                    if dig:
                        has_fig = True
                        if not any(norm(s) in text for s in dig):
                            errors.append(f"{where}: none of {dig} in summaries of {alts}")
                    elif e["answer_lang"] == "nl" and not any(norm(s) in text for s in group):
                        notes.append(f"{where}: key fact {group} not literally in cited summaries")
                keyfact = bool(e.get("answer_contains") or e.get("answer_contains_any"))
                if keyfact:
                    cited_q += 1
                    if e["answer_lang"] == "en":
                        cited_q_en += 1
                    stats["cited_with_figure" if has_fig else "cited_with_keyfact"] += 1
            if not alts and open_kvk and second:
                # history facts: dates and figures come from the open company's register entry
                # (or from the findings dictated in this inspection)
                entry = reg[open_kvk][2]
                flat = list(e.get("answer_contains", [])) + [x for g in e.get("answer_contains_any", []) for x in g]
                for s_ in flat:
                    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s_) and s_ not in entry:
                        errors.append(f"{where}: date {s_} is not in the history of {open_kvk}")
                for s_ in e.get("answer_contains", []):
                    if "°" in s_ and norm(s_) not in norm(entry) and norm(s_) not in norm(" ".join(insp_findings)):
                        errors.append(f"{where}: figure {s_!r} is neither in the history of {open_kvk} nor in a finding")
            for c in e.get("cites_not", []):
                if not arts_for([c]):
                    errors.append(f"{where}: cites_not {c!r} matches no corpus source/citation")
                if c in alts:
                    errors.append(f"{where}: {c!r} both cited and not cited")
            if e.get("not_covered"):
                stats["not_covered"] += 1
        stats["conversations"] += 1

    if tuning_kvks is not None:
        shared = kvks & tuning_kvks
        if shared:
            errors.append(f"held-aside part uses companies of the tuning part: {sorted(shared)}")

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

    print(f"== {os.path.relpath(path, ROOT)}")
    print(f"conversations: {stats['conversations']}, turns: {stats['turns']}")
    print(f"turns by answer_lang: {dict(lang_turns)} "
          f"({100*lang_turns['nl']/max(1,stats['turns']):.0f}% nl)")
    print(f"conversations by theme: {dict(themes)}")
    if kinds:
        print(f"conversations by kind: {dict(sorted(kinds.items()))}")
    print(f"opens: {stats['opens']}, asks_about: {stats['asks_about']}, not_in_register: {stats['not_in_register']}")
    print(f"finding turns: {len(set(s for s, _, _ in finding_says))} sentences, {len(finding_says)} findings")
    if True:
        print(f"finding phrasing categories: {dict(cats)}")
    print(f"questions with cites + key fact: {cited_q} (English: {cited_q_en}); with a figure: {stats['cited_with_figure']}")
    print(f"report turns: {stats['reports']}, distinct wordings: {len(report_wordings)}, declined: {stats['report_declined']}")
    if second:
        newkeys = ["answer_not_contains", "findings", "finding_category", "finding_corrected",
                   "inspection_findings_total", "cites_any", "cites_not", "not_covered", "report_declined",
                   "no_report", "report_not_contains"]
        print("turns using the new keys: " + ", ".join(f"{k} {keyuse[k]}" for k in newkeys))
    for n in notes:
        print("note:", n)
    for er in errors:
        print("ERROR:", er)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return errors, kvks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", help="check only this file (default: all three sets)")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "data", "regulations.json"))
    a = ap.parse_args()
    reg = load_register()
    regwords = register_words()
    corpus = json.load(open(a.corpus, encoding="utf-8"))
    files = [a.file] if a.file else [os.path.join(HERE, f) for f in FILES if os.path.exists(os.path.join(HERE, f))]
    nerr = 0
    for f in files:
        tuning_kvks = None
        t2 = os.path.join(HERE, "inspector_turns_2.json")
        if os.path.basename(f) == "held_aside.json" and os.path.exists(t2):
            tuning_kvks = set()
            for conv in json.load(open(t2, encoding="utf-8"))["conversations"]:
                for t in conv["turns"]:
                    e = t["expect"]
                    tuning_kvks |= set(([e["opens"]] if "opens" in e else []) + e.get("asks_about", []))
        errs, _ = check_file(f, reg, regwords, corpus, tuning_kvks=tuning_kvks)
        nerr += len(errs)
        print()
    return 1 if nerr else 0


if __name__ == "__main__":
    sys.exit(main())
