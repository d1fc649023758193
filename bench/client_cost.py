"""Runs a client command and prints what it cost, from the kernel's accounting of that process.

    python3 bench/client_cost.py OUTFILE CMD [ARGS...]

CMD's stdout goes to OUTFILE, its stderr to OUTFILE.err. Prints one JSON fragment (no braces,
for a bench step's extra fields): "client_cpu_s" (user + system seconds, from wait4's rusage, in
microseconds rather than the 10 ms of /usr/bin/time: a franz-go read of 100 MB costs 0.06-0.15 s),
"client_user_s", "client_sys_s", "client_minflt" (page faults: fresh memory the client touched),
"client_csw" (voluntary context switches: the client waiting for the network) and
"client_icsw" (involuntary: the host taking its CPU). Exits with CMD's status.
"""

import os
import subprocess
import sys


def main():
    out = sys.argv[1]
    with open(out, "wb") as o, open(out + ".err", "wb") as e:
        p = subprocess.Popen(sys.argv[2:], stdout=o, stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
    print(f'"client_cpu_s":{ru.ru_utime + ru.ru_stime:.6f},"client_user_s":{ru.ru_utime:.6f},'
          f'"client_sys_s":{ru.ru_stime:.6f},"client_minflt":{ru.ru_minflt},"client_csw":{ru.ru_nvcsw},'
          f'"client_icsw":{ru.ru_nivcsw}')
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
