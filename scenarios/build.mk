# The live systems: scenario parsers, drivers and live entries (one
# directory each, capture/live.h; in SYSTEM/driver/ where SYSTEM/ is a Go
# package, as etcd's, since Go refuses C files beside its own).
# (The kernel module under scenarios/spin/module/ is built at run time,
# against the guest kernel's headers, by the guest runner.)
CAPTURE_SRC += $(wildcard scenarios/*/*.c scenarios/*/driver/*.c)
