# /prepare.sh of a module guest (qemu/module-guest.c: spin, rwlock): what
# does not depend on the scenario, so that a snapshot holds it (qemu/init
# runs it before the guest is saved): sysfs and tracefs mounted, the ftrace
# ring buffer sized, the module loaded with its tracing armed, waiting for
# its steps (guest.sh), and tracedump resident: it has shipped the trace
# formats, opened the module's parameters and the per-CPU ring buffers, and
# waits on /trace.fifo for the scenario's words to run it and ship the
# ring buffer.
# capture_module, capture_cpus and capture_trace_kb come from the kernel
# command line; capture_trace_kb=0: the JSON channel alone, no tracing.
bb=/bin/busybox
t=/tracing
m=$capture_module
kb=${capture_trace_kb:-256}
$bb mkdir -p /sys
$bb mount -t sysfs sysfs /sys || exit 1
if [ "$kb" = 0 ]; then
	$bb insmod /$m.ko cpus="${capture_cpus:-1}" trace=0 || exit 1
	exit 0
fi
$bb mkdir -p $t
$bb mount -t tracefs tracefs $t || exit 1
echo "$kb" >$t/buffer_size_kb || exit 1
$bb insmod /$m.ko cpus="${capture_cpus:-1}" || exit 1
$bb mkfifo /trace.fifo || exit 1
/tracedump -w /trace.fifo -p /sys/module/$m/parameters $t capture_$m lock
