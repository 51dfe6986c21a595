#!/usr/bin/env python3
"""Discrete-event model of single-pass scans' look-back waiting (design aid, not a GPU model; used
to choose the deterministic look-back's design, bench/notes/scan.md "Deterministic look-back").
  python3 bench/lookback_model.py --tiles 65536 --rtt 0.4 --jitter 0.3

Resident slots run tiles in ticket order. A tile: ticket (1 RTT), load (DRAM, processor-shared
bandwidth with a per-tile cap), publish aggregate, look-back (scheme), store (DRAM), free slot.
A poll issued at p sees a published value iff it became visible by p + RTT/2; its results are back
at p + RTT. Publishing makes a value visible RTT/2 later.
Schemes:
  none       no look-back (timing bound)
  adaptive   the current decoupled look-back, W=1 (nearest inclusive prefix in windows of 32)
  anchored   fixed anchors (deterministic_lookback.cuh): I(t) = I(t-32) op F(A(t-31..t)); walks
             back windows (W per poll)
  fenwick    the binary-indexed-tree proposal (levels published by last tiles; prefix from the
             binary decomposition of t)
"""
import heapq, math, random, sys, argparse

def run(scheme, tiles=65536, slots=1056, rtt=0.5, delay=1.245, sleep=0.648, bw=3.3e6,
        load_bytes=16384, store_bytes=16384, cap=16384.0, jitter=0.3, W=1, seed=1, fen_delay=True,
        compute=0.3, kmax=32):
    rng = random.Random(seed)
    h = rtt / 2
    INF = float('inf')
    visA = [INF] * tiles
    visI = [INF] * tiles
    # fenwick levels: dict (level, end_tile) -> vis time
    visL = {}
    ev = []  # (time, seq, kind, tile)
    seq = 0
    def push(t, kind, tile):
        nonlocal seq
        seq += 1
        heapq.heappush(ev, (t, seq, kind, tile))
    # processor sharing memory phases
    V = 0.0
    now = 0.0
    mem = []  # (vfinish, seq, tile, phase)
    nmem = 0
    def rate():
        return min(cap, bw / nmem) if nmem else cap
    def advance(t):
        nonlocal V, now
        if nmem:
            V += rate() * (t - now)
        now = t
    def start_mem(tile, nbytes, phase):
        nonlocal nmem, seq
        seq += 1
        heapq.heappush(mem, (V + nbytes, seq, tile, phase))
        nmem += 1
    next_ticket = 0
    finish = 0.0
    polls = 0
    loads = 0
    state = {}
    wait_total = 0.0
    def start_tile(t0):
        nonlocal next_ticket
        if next_ticket >= tiles:
            return
        tile = next_ticket
        next_ticket += 1
        push(t0 + rtt, 'loadstart', tile)
    for s in range(min(slots, tiles)):
        start_tile(0.0)

    def fen_needs(t):
        lefts = []  # (level, end) for k=1..K
        k = 1
        while (t + 1) % (1 << k) == 0:
            lefts.append((k - 1, t - (1 << (k - 1))))
            k += 1
        pref = []
        base = 0
        for b in range(t.bit_length() - 1, -1, -1):
            if t >> b & 1:
                pref.append((b, base + (1 << b) - 1))
                base += 1 << b
        return lefts, pref
    def vis_block(level, end):
        if level == 0:
            return visA[end]
        return visL.get((level, end), INF)

    def poll(tile, p):
        nonlocal polls, loads
        polls += 1
        st = state[tile]
        seen = p + h
        back = p + rtt
        if scheme == 'adaptive':
            we = st['we']
            k = -1
            empty_above = False
            cnt = 0
            for i in range(we - 1, we - 33, -1):
                if i < 0:
                    break
                cnt += 1
                if visI[i] <= seen:
                    k = i
                    break
                if visA[i] > seen:
                    empty_above = True
            loads += 32
            if empty_above:
                push(back + st['sl'], 'poll', tile)
                return
            if k >= 0 or we - 32 <= 0:
                done(tile, back)
                return
            st['we'] = we - 32
            push(back, 'poll', tile)
            return
        if scheme == 'anchored':
            w0 = st['w0']
            lastw = st['lastw']  # base window index (anchor < 0)
            # anchors 0..min(w0+W-1, lastw)
            hi = min(w0 + W - 1, lastw, kmax - 1)
            loads += 32 * (hi - w0 + 1 if not st['capped'] else 0) + (hi + 1)
            def anchor_ready(l):
                a = tile - 32 * (l + 1)
                return a < 0 or visI[a] <= seen
            def window_complete(w):
                lo = tile - 32 * (w + 1) + 1
                for u in range(max(lo, 0), tile - 32 * w + 1):
                    if u == tile:
                        continue
                    if visA[u] > seen:
                        return False
                return True
            # windows < w0 complete already
            for l in range(0, min(w0, hi + 1)):
                if anchor_ready(l):
                    done(tile, back)
                    return
            if st['capped']:
                push(back + st['sl'], 'poll', tile)
                return
            w = w0
            while w <= hi:
                if not window_complete(w):
                    break
                if anchor_ready(w):
                    done(tile, back)
                    return
                w += 1
            if w <= hi:  # window w incomplete
                st['w0'] = w
                push(back + st['sl'], 'poll', tile)
                return
            st['w0'] = w
            if w >= kmax:
                st['capped'] = True
                push(back + st['sl'], 'poll', tile)
                return
            push(back, 'poll', tile)  # step back at once
            return
        if scheme == 'fenwick':
            lefts, pref = st['lefts'], st['pref']
            loads += len(st['need_l']) + len(st['need_p'])
            st['need_l'] = [x for x in st['need_l'] if vis_block(*x) > seen]
            st['need_p'] = [x for x in st['need_p'] if vis_block(*x) > seen]
            # level k is published once the left halves of levels 1..k are all in (progressively)
            missing = set(st['need_l'])
            for k in range(1, len(lefts) + 1):
                if lefts[k - 1] in missing:
                    break
                if (k, tile) not in visL:
                    visL[(k, tile)] = back + h
            if not st['need_l'] and not st['need_p']:
                done(tile, back)
                return
            push(back + st['sl'], 'poll', tile)
            return
        raise ValueError(scheme)

    def done(tile, t):
        nonlocal wait_total
        st = state[tile]
        visI[tile] = t + h
        wait_total += t - st['a']
        push(t + compute, 'storestart', tile)

    while ev or mem:
        tmem = INF
        if mem:
            r = rate()
            tmem = now + (mem[0][0] - V) / r
        tev = ev[0][0] if ev else INF
        if tmem <= tev:
            advance(tmem)
            _, _, tile, phase = heapq.heappop(mem)
            nmem -= 1
            if phase == 'load':
                push(now + compute + (rng.expovariate(1 / jitter) if jitter > 0 else 0), 'agg', tile)
            else:
                finish = max(finish, now)
                start_tile(now)
            continue
        advance(tev)
        _, _, kind, tile = heapq.heappop(ev)
        if kind == 'loadstart':
            start_mem(tile, load_bytes, 'load')
        elif kind == 'agg':
            a = now
            visA[tile] = a + h
            st = {'a': a, 'sl': sleep}
            state[tile] = st
            if scheme == 'none':
                done(tile, a)
                continue
            if scheme == 'adaptive':
                st['we'] = tile
                if tile == 0:
                    done(tile, a)
                    continue
            if scheme == 'anchored':
                st['w0'] = 0
                st['capped'] = False
                st['lastw'] = (tile) // 32  # window whose anchor is < 0
            if scheme == 'fenwick':
                lefts, pref = fen_needs(tile)
                st['lefts'], st['pref'] = lefts, pref
                st['need_l'] = list(lefts)
                st['need_p'] = list(pref)
                st['published'] = False
                if not lefts and not pref:
                    done(tile, a)
                    continue
                if not fen_delay:
                    push(a, 'poll', tile)
                    continue
            push(a + delay, 'poll', tile)
        elif kind == 'poll':
            poll(tile, now)
        elif kind == 'storestart':
            start_mem(tile, store_bytes, 'store')
    return finish, polls / tiles, loads / tiles, wait_total / tiles

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--tiles', type=int, default=65536)
    ap.add_argument('--rtt', type=float, default=0.5)
    ap.add_argument('--jitter', type=float, default=0.3)
    ap.add_argument('--schemes', default='none,adaptive,anchored,anchored2,fenwick,fenwick_nodelay')
    a = ap.parse_args()
    base = None
    for s in a.schemes.split(','):
        kw = {}
        name = s
        if s == 'anchored2':
            s, kw = 'anchored', {'W': 2}
        if s == 'fenwick_nodelay':
            s, kw = 'fenwick', {'fen_delay': False}
        f, p, l, wt = run(s, tiles=a.tiles, rtt=a.rtt, jitter=a.jitter, **kw)
        if base is None:
            base = f
        print(f"{name:16s} {f/1000:8.4f} ms  x{f/base:5.3f}  polls/tile {p:5.2f}  loads/tile {l:6.1f}  wait/tile {wt:5.2f} us")
