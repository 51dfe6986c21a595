import csv, sys, io, subprocess, re
rep = sys.argv[1]
for kid, label in ((0, 'fused<5> (ID 0)'), (6, 'blocks kernel over offsets (ID 6)')):
    out = subprocess.run(['ncu', '--import', rep, '--page', 'source', '--csv', '--print-source', 'sass',
                          '--launch-skip', str(kid), '--launch-count', '1'], capture_output=True, text=True)
    text = out.stdout
    lines = text.splitlines()
    # find the header row
    start = next((i for i, l in enumerate(lines) if l.startswith('"#"') or 'Address' in l and 'Source' in l), None)
    if start is None:
        print(label, 'no table; stderr:', out.stderr[:500]); print(text[:1500]); continue
    rows = list(csv.reader(io.StringIO('\n'.join(lines[start:]))))
    hdr = rows[0]
    print('==', label, 'columns:', [h for h in hdr][:40])
    src = next(i for i, h in enumerate(hdr) if h == 'Source')
    cols = {h: i for i, h in enumerate(hdr)}
    def num(r, i):
        try: return float(r[i].replace(',', ''))
        except: return 0.0
    samp = next((i for i, h in enumerate(hdr) if h.startswith('Warp Stall Sampling (All')), None)
    bar = [i for i, h in enumerate(hdr) if 'barrier' in h.lower()]
    lsb = [i for i, h in enumerate(hdr) if 'long_scoreboard' in h.lower() or 'long scoreboard' in h.lower()]
    print('samples col', samp, 'barrier cols', [hdr[i] for i in bar], 'long sb cols', [hdr[i] for i in lsb])
    body = rows[1:]
    total = sum(num(r, samp) for r in body) if samp is not None else 0
    print('total samples', total, 'instructions', len(body))
    key = bar[0] if bar else samp
    top = sorted(range(len(body)), key=lambda j: -num(body[j], key))[:14]
    for j in sorted(top):
        r = body[j]
        ctx = ' | '.join(body[t][src].strip()[:38] for t in range(max(0, j - 3), j))
        print(f"{j:5d} {r[src].strip()[:60]:60s} all={num(r, samp):7.0f} bar={num(r, key):7.0f}   before: {ctx}")
