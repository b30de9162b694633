# Scenario drivers: the spin scenario parser and its kernel drivers.
# (The kernel module under scenarios/spin/module/ is built at run time,
# against the guest kernel's headers, by the guest runner.)
CAPTURE_SRC += $(wildcard scenarios/spin/*.c)
