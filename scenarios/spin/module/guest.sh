# /guest.sh of the spin guest: run the scenario the host put on the kernel
# command line (capture_name, capture_steps, capture_cpus, capture_trace_kb;
# they reach /init as variables), then ship the ftrace ring buffer the
# module's events went into to the trace channel (port 0x4e9).
# capture_trace_kb=0: the JSON channel alone, no tracing.  capture_stop=
# midway or midway-hang (the host's CAPTURE_GUEST_STOP) makes the module
# stop printing halfway.
bb=/bin/busybox
t=/tracing
kb=${capture_trace_kb:-256}
if [ "$kb" != 0 ]; then
	$bb mkdir -p $t
	$bb mount -t tracefs tracefs $t || exit 1
	echo "$kb" >$t/buffer_size_kb || exit 1
fi
trace=$([ "$kb" = 0 ] && echo 0 || echo 1)
$bb insmod /spin.ko name="$capture_name" steps="$capture_steps" \
	cpus="${capture_cpus:-1}" trace=$trace stop="${capture_stop:-}" || exit 1
[ "$kb" = 0 ] || exec /tracedump $t capture_spin lock
