# /prepare.sh of the spin guest: what does not depend on the scenario, so
# that a snapshot holds it (qemu/init runs it before the guest is saved):
# sysfs and tracefs mounted, the ftrace ring buffer sized, spin.ko loaded
# with its tracing armed, waiting for its steps (guest.sh).  capture_cpus
# and capture_trace_kb come from the kernel command line.
# capture_trace_kb=0: the JSON channel alone, no tracing.
bb=/bin/busybox
t=/tracing
kb=${capture_trace_kb:-256}
$bb mkdir -p /sys
$bb mount -t sysfs sysfs /sys || exit 1
if [ "$kb" != 0 ]; then
	$bb mkdir -p $t
	$bb mount -t tracefs tracefs $t || exit 1
	echo "$kb" >$t/buffer_size_kb || exit 1
fi
trace=$([ "$kb" = 0 ] && echo 0 || echo 1)
$bb insmod /spin.ko cpus="${capture_cpus:-1}" trace=$trace
