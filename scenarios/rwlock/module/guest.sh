# /guest.sh of the rwlock guest: run the scenario the host put on the
# kernel command line (capture_name, capture_steps, capture_cpus,
# capture_trace_kb reach /init as variables), then ship the ftrace ring
# buffer (the module's events and the kernel's lock:contention_*) to the
# trace channel (port 0x4e9).
bb=/bin/busybox
t=/tracing
$bb mkdir -p $t
$bb mount -t tracefs tracefs $t || exit 1
echo "${capture_trace_kb:-256}" >$t/buffer_size_kb || exit 1
$bb insmod /rwlock.ko name="$capture_name" steps="$capture_steps" \
	cpus="${capture_cpus:-1}" || exit 1
exec /tracedump $t capture_rwlock lock
