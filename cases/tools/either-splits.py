"""Regenerate cases/divergences/either-splits.yaml: per oracle, one ledger
entry pinning its `split` cells (either-queries on which it is in the
minority of all oracles) that no other entry explains.

Which oracles form the minority moves whenever an oracle is added, so after
registering one:

    head -4 cases/divergences/either-splits.yaml > /tmp/h && cp /tmp/h cases/divergences/either-splits.yaml
    cargo xtask conformance            # a full run: every split cell is untriaged now
    python3 cases/tools/either-splits.py cases/divergences/either-splits.yaml
    cargo xtask conformance --strict   # exits 0

It reads reports/run/latest/compat.json (the typed report). A cell goes into
the oracle's entry when it has one (outcomes and cases kept sorted), else a
new entry is appended: so after adding `either` cases, a plain run of it adds
their split cells without emptying the file first.
"""
import json, sys, collections
import os
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
d = json.load(open(os.path.join(root, 'reports/run/latest/compat.json')))
by = collections.defaultdict(dict)
for c in d['cells']:
    if c['status'] == 'split' and not c.get('triaged_by'):
        a = c['answer']; o = a['outcome']
        pin = o if o in ('allowed', 'disallowed') else None
        if pin is None:
            continue
        by[c['oracle']][f"{c['case']}#{c['query']+1}"] = pin
out = sys.argv[1]


def merge(lines, oracle, cells):
    """Add `cells` to the entry either-minority-<oracle> in `lines`; False
    when the file has no such entry."""
    try:
        start = lines.index(f'  - id: either-minority-{oracle}')
    except ValueError:
        return False
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith('  - id: ')), len(lines))
    block = lines[start:end]
    pins_at = block.index(f'      {oracle}:') + 1
    pins_end = next(i for i in range(pins_at, len(block))
                    if not block[i].startswith('        '))
    pins = {l.strip().split('": ')[0].strip('"'): l for l in block[pins_at:pins_end]}
    for ref, pin in cells.items():
        pins[ref] = f'        "{ref}": {pin}'
    cases_at = block.index('    cases:') + 1
    cases_end = next(i for i in range(cases_at, len(block))
                     if not block[i].startswith('      - '))
    refs = {l.strip()[2:].strip('"') for l in block[cases_at:cases_end]} | set(cells)
    block[cases_at:cases_end] = [f'      - "{r}"' for r in sorted(refs)]
    block[pins_at:pins_end] = [pins[r] for r in sorted(pins)]
    lines[start:end] = block
    return True


lines = open(out).read().split('\n')
new = {}
for oracle, cells in sorted(by.items()):
    if not merge(lines, oracle, cells):
        new[oracle] = cells
    print(oracle, len(cells))
with open(out, 'w') as f:
    f.write('\n'.join(lines))
with open(out, 'a') as f:
    for oracle, cells in new.items():
        f.write(f'''  - id: either-minority-{oracle}
    title: "{oracle} takes the minority reading of queries RFC 9309 leaves open"
    oracles: [{oracle}]
    outcomes:
      {oracle}:
''')
        for ref, pin in sorted(cells.items()):
            f.write(f'        "{ref}": {pin}\n')
        f.write(f'''    classification: spec-ambiguity
    rfc: "§2.2.2"
    upstream: "none known"
    cases:
''')
        for ref in sorted(cells):
            f.write(f'      - "{ref}"\n')
        f.write(f'''    explanation: "Each of these queries expects `either`: RFC 9309 allows both verdicts (the corpus query cites why), and the run flags the oracles answering as the minority of all {len(d['oracles'])} oracles did. {oracle}'s answer is one the RFC permits; it is pinned so that a change of it shows. Which parsers sit in the minority moves as oracles are added, so this list is regenerated from a full run."
''')
