#!/usr/bin/env python3
# CPU time (user+sys, from wait4) and wall time of commands, interleaved: cpu.py N 'cmd1' 'cmd2' ...
import os, shlex, subprocess, sys, time, statistics
n = int(sys.argv[1]); cmds = sys.argv[2:]
res = {c: ([], []) for c in cmds}
for i in range(n + 2):
    for c in cmds:
        t0 = time.perf_counter()
        p = subprocess.Popen(shlex.split(c), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = (time.perf_counter() - t0) * 1000
        if i >= 2:
            res[c][0].append((ru.ru_utime + ru.ru_stime) * 1000); res[c][1].append(wall)
for c, (cpu, wall) in res.items():
    print(f"cpu {statistics.median(cpu):6.1f}  wall {statistics.median(wall):6.1f} (min {min(wall):6.1f})  {c}")
