# The live systems: scenario parsers, drivers and live entries (one
# directory each, capture/live.h; in SYSTEM/driver/ where SYSTEM/ is a Go
# package, as etcd's, since Go refuses C files beside its own), and what
# several of them share (scenarios/*.c).
# (The kernel modules under scenarios/SYSTEM/module/ are built at run time,
# against the guest kernel's headers, by the guest runner.)
CAPTURE_SRC += $(wildcard scenarios/*.c scenarios/*/*.c scenarios/*/driver/*.c)
