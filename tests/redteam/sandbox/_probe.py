# Runs inside a vouch sandbox. Tries, WITHOUT CHANGING ANYTHING, to open the
# host's kernel knobs for writing (open O_WRONLY, no O_TRUNC, never write,
# close at once) and reads its own capabilities and user namespace. Prints one
# line per finding and exits 1 when anything is writable or a capability is
# held, 0 when every attempt was refused.
import errno
import glob
import os

bad = []


def try_open(path):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    except OSError as e:
        print(f"refused {path}: {errno.errorcode.get(e.errno, e.errno)}")
        return
    os.close(fd)
    bad.append(path)
    print(f"WRITABLE {path}")


try_open("/proc/sys/kernel/core_pattern")
try_open("/proc/sys/kernel/modprobe")
try_open("/proc/sys/vm/drop_caches")
if os.path.lexists("/proc/sysrq-trigger"):
    try_open("/proc/sysrq-trigger")
else:
    print("absent /proc/sysrq-trigger")
for path in sorted(glob.glob("/sys/kernel/mm/*/enabled"))[:2] + ["/sys/kernel/uevent_helper"]:
    if os.path.exists(path):
        try_open(path)

with open("/proc/self/status") as f:
    for line in f:
        name, _, value = line.partition(":")
        if name in ("CapEff", "CapPrm", "CapBnd", "CapAmb"):
            print(f"{name} {value.strip()}")
            if int(value, 16) != 0:
                bad.append(name)
with open("/proc/self/uid_map") as f:
    uid_map = f.read().split()
print("uid_map " + " ".join(uid_map))
# The initial user namespace maps every id (0 0 4294967295); a sandbox's own maps one.
if uid_map[2:3] == ["4294967295"]:
    bad.append("no user namespace")
print("uid " + str(os.getuid()))
raise SystemExit(1 if bad else 0)
