// SPDX-License-Identifier: MIT
// bench/jvm-overhead's target: Calls.apply called N times on one thread
// (after N/10 calls to warm it up), its own figure printed: the loop's
// wall-clock and the thread's CPU time per call.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class Calls {
    static final class Op {
        final int id;
        final long amount;
        final String memo;
        Op(int id, long amount, String memo) { this.id = id; this.amount = amount; this.memo = memo; }
    }

    long total;
    final int[] hist = new int[8];

    long apply(Op op) {
        total += op.amount;
        hist[op.id & 7]++;
        return total;
    }

    long unused(Op op) { return op.amount; }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        Calls c = new Calls();
        Op[] ops = new Op[64];
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < ops.length; i++)
            ops[i] = new Op(i, 3 * i + 1, "memo-" + i);
        long sum = 0;
        for (int i = 0; i < n / 10; i++)
            sum += c.apply(ops[i & 63]);
        long c0 = mx.getCurrentThreadCpuTime(), t0 = System.nanoTime();
        for (int i = 0; i < n; i++)
            sum += c.apply(ops[i & 63]);
        long t1 = System.nanoTime(), c1 = mx.getCurrentThreadCpuTime();
        System.out.printf("%.1f %.1f %d%n", (t1 - t0) / (double) n, (c1 - c0) / (double) n, sum & 1);
    }
}
