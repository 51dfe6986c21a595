#!/usr/bin/env python3
"""Functional emulation of anchored_look_back (include/algo/detail/cuda/scan/
deterministic_lookback.cuh), line by line (keep the two in step), with
symbolic values: op(a, b) = ('op', a, b), A(u) = ('A', u), init = ('init',) or absent.
Random adversarial schedules (tiles start in ticket order; any started tile may be advanced by one
poll at any time, with some tiles starved for long stretches). Checks, for every tile:
  * the exclusive prefix it returns and the inclusive prefix it publishes are EXACTLY the fixed
    expressions of the definition (same tree = same grouping = same bits for a pure op);
  * flattened, they are init, A(0), ..., A(t-1) (and A(t)) in order;
  * the run terminates (no deadlock) whatever the schedule.
  python3 bench/lookback_emulate.py [basic|slow|cap|all]   (minutes; exit status 1 on a failure)
"""
import random, sys

NONE = object()

def op(a, b):
    return ('op', a, b)

def combine(x, f):  # x may be NONE
    return f if x is NONE else op(x, f)

def window_scan(vals, first):
    v = list(vals)
    for d in (1, 2, 4, 8, 16):
        other = [v[l - d] if l - d >= 0 else v[l] for l in range(32)]  # shfl_up: low lanes keep their own
        v = [op(other[l], v[l]) if l - d >= first else v[l] for l in range(32)]
    return v

def flatten(e, out):
    if e is NONE:
        return out
    if e[0] == 'op':
        flatten(e[1], out); flatten(e[2], out)
    else:
        out.append(e)
    return out

class Reference:
    def __init__(self, tiles, init):
        self.init = init
        self.I = []
        self.E = []
        for u in range(tiles):
            first = max(0, 31 - u)
            vals = [('A', u - 31 + l) if u - 31 + l >= 0 else None for l in range(32)]
            sc = window_scan(vals, first)
            x = self.I[u - 32] if u >= 32 else init
            self.I.append(combine(x, sc[31]))
            self.E.append(init if u == 0 else combine(x, sc[30]))

def look_back(tile, tiles, W, st, init):
    """Generator: yields before each poll; returns (exclusive, inclusive published)."""
    lane_range = range(32)
    yield 'load'  # the tile's loads: its aggregate comes later
    st['A'][tile] = ('A', tile)  # lane 0 publishes the aggregate
    base = tile >> 5
    last = base if base < 31 else 31
    kept_window = [None] * 33
    kept_anchor = [None] * 32
    nxt = 0
    while True:
        yield 'poll'
        top = nxt + W - 1 if nxt + W - 1 < last else last
        v = [[None] * 32 for _ in range(W)]
        status = [['before'] * 32 for _ in range(W)]
        for i in range(W):
            w = nxt + i
            for lane in lane_range:
                u = tile - 32 * (w + 1) + 1 + lane
                if w <= top and u >= 0:
                    if u == tile:
                        status[i][lane] = 'agg'; v[i][lane] = ('A', tile)
                    else:
                        val = st['A'].get(u)
                        if val is None:
                            status[i][lane] = 'empty'
                        else:
                            status[i][lane] = 'agg'; v[i][lane] = val
        anchors = 0
        hi = top if top > nxt - 1 else nxt - 1
        for lane in lane_range:
            if lane <= hi:
                a = tile - 32 * (lane + 1)
                if a < 0:
                    ready = True
                else:
                    val = st['I'].get(a)
                    ready = val is not None
                    if ready:
                        kept_anchor[lane] = val
                if ready:
                    anchors |= 1 << lane
        mask = 0xffffffff if nxt >= 32 else (1 << nxt) - 1
        if nxt > 0 and (anchors & mask):
            found = (anchors & -anchors).bit_length() - 1
        else:
            found = -1
        incomplete = False
        for i in range(W):
            w = nxt
            if found < 0 and not incomplete and w <= top:
                if any(s == 'empty' for s in status[i]):
                    incomplete = True
                else:
                    first = 32 * (w + 1) - 1 - tile if w == base else 0
                    sc = window_scan(v[i], first)
                    kept_window[w] = sc[31]
                    if w == 0:
                        kept_window[32] = sc[30] if tile > 0 else sc[31]
                    nxt = w + 1
                    if anchors >> w & 1:
                        found = w
        if found >= 0:
            break
        if not incomplete and nxt <= last:
            st['walks'] += 1
            continue
        st['sleeps'] += 1
        if nxt > last:
            st['capped'] += 1
    # fold
    if found == base:
        xv, has = (NONE, False) if init is NONE else (init, True)
    else:
        xv, has = kept_anchor[found], True
    exclusive = xv
    st['max_found'] = max(st['max_found'], found)
    for w in range(found, -1, -1):
        if w == 0:
            f = kept_window[32]
            exclusive = op(xv, f) if has else f
        f = kept_window[w]
        xv = op(xv, f) if has else f
        has = True
    st['I'][tile] = xv
    ex = exclusive if tile > 0 else (init if init is not NONE else NONE)
    return ex, xv

def run(tiles, W, init, seed, starve=0.02, start_bias=0.3, hold=0.98, frozen=None):
    rng = random.Random(seed)
    ref = Reference(tiles, init)
    st = {'A': {}, 'I': {}, 'walks': 0, 'sleeps': 0, 'max_found': 0, 'capped': 0}
    active = {}
    started = 0
    done = {}
    slow = set()
    steps = 0
    release_at = 0
    while len(done) < tiles:
        steps += 1
        if steps > 200 * tiles * 40:
            raise RuntimeError('no progress (deadlock?)')
        if started < tiles and (not active or rng.random() < start_bias):
            t = started; started += 1
            g = look_back(t, tiles, W, st, init)
            next(g)  # up to its loads
            active[t] = g
            if rng.random() < starve:
                slow.add(t)
            continue
        keys = list(active.keys())
        t = rng.choice(keys)
        if t in slow and rng.random() < hold:
            continue
        if frozen and t in frozen and t in st['A'] and (started < tiles or steps < release_at):
            continue
        if started == tiles and release_at == 0:
            release_at = steps + 40 * tiles
        try:
            next(active[t])
        except StopIteration as e:
            ex, inc = e.value
            done[t] = (ex, inc)
            del active[t]
    bad = 0
    for t in range(tiles):
        ex, inc = done[t]
        want_ex = ref.E[t]
        if ex != want_ex or inc != ref.I[t]:
            bad += 1
            if bad < 4:
                print('MISMATCH tile', t, 'ex ok' if ex == want_ex else 'ex BAD', 'inc ok' if inc == ref.I[t] else 'inc BAD')
        seq = flatten(ex, [])
        want = ([init] if init is not NONE else []) + [('A', u) for u in range(t)]
        if seq != want:
            bad += 1
            if bad < 4:
                print('ORDER tile', t)
        seq = flatten(inc, [])
        if seq != want + [('A', t)]:
            bad += 1
    return bad, st

if __name__ == '__main__':
    total = 0
    which = sys.argv[1] if len(sys.argv) > 1 else 'all'
    cases = [(1, 1), (2, 1), (31, 1), (32, 1), (33, 2), (65, 1), (300, 1), (300, 2), (300, 4), (1100, 1),
             (1500, 4), (2200, 1)]
    for i, (tiles, W) in enumerate(cases if which in ('all', 'basic') else []):
        for init in (('init',), NONE):
            for seed in range(3 if tiles < 1000 else 1):
                starve = 0.05 if tiles < 1000 else 0.01
                bad, st = run(tiles, W, init, seed * 101 + i, starve=starve,
                              start_bias=0.9 if tiles > 1000 else 0.3)
                total += bad
                print(f"tiles {tiles:5d} W {W} init {'yes' if init is not NONE else 'no '} seed {seed}: "
                      f"{'OK ' if bad == 0 else 'BAD'} walks {st['walks']:6d} sleeps {st['sleeps']:7d} "
                      f"deepest anchor window {st['max_found']}")
    # adversarial: few, very slow tiles in big grids (walks up to the 32-window cap, then waits)
    for tiles, W, hold, seed in (((1600, 1, 0.9995, 7), (1600, 2, 0.9995, 8), (1400, 4, 0.9998, 9)) if which in ('all', 'slow') else ()):
        for init in (('init',), NONE):
            bad, st = run(tiles, W, init, seed, starve=0.003, start_bias=0.95, hold=hold)
            total += bad
            print(f"slow tiles: tiles {tiles} W {W} init {'yes' if init is not NONE else 'no '}: "
                  f"{'OK ' if bad == 0 else 'BAD'} walks {st['walks']} sleeps {st['sleeps']} deepest anchor window {st['max_found']}")
    # 32 tiles of one residue (5, 37, ..., 997) frozen after their aggregates until every other tile
    # has started: tiles 1029, 1061, ... find none of their 32 anchors and wait at the cap
    for tiles, W in (((1300, 1), (1300, 4)) if which in ('all', 'cap') else ()):
        for init in (('init',), NONE):
            bad, st = run(tiles, W, init, 5, starve=0.0, start_bias=0.5, frozen={5 + 32 * k for k in range(32)})
            total += bad
            print(f"frozen residue 5: tiles {tiles} W {W} init {'yes' if init is not NONE else 'no '}: "
                  f"{'OK ' if bad == 0 else 'BAD'} walks {st['walks']} sleeps {st['sleeps']} capped polls {st['capped']} "
                  f"deepest anchor window {st['max_found']}")
    print('FAILURES', total)
    sys.exit(1 if total else 0)
