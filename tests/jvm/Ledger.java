// SPDX-License-Identifier: MIT
/*
 * A ledger for the JVM agent's test (tests/jvm/test-jvm.sh): worker
 * threads take turns (a turn counter under a lock: the same schedule
 * every run) applying operations to four accounts, and the ledger logs
 * each one on stdout with the values tests/jvm/ledger.probes reads, which
 * check-ledger.py compares with the events.  The types are the ones a
 * spec reads: primitives of every size, an enum, Strings (one past a
 * str's bound, one not ASCII), a boxed Long that may be null, an
 * AtomicLong, arrays, a List, a Map, a nested object that may be null,
 * a field declared as an interface (a cast), a static method.
 */
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

public class Ledger {
    enum Kind { DEPOSIT, WITHDRAW, TRANSFER }

    interface Audit { boolean allows(long amount); }

    static final class Strict implements Audit {
        final long limit;
        Strict(long limit) { this.limit = limit; }
        public boolean allows(long amount) { return amount <= limit; }
    }

    static final class Lenient implements Audit {
        public boolean allows(long amount) { return true; }
    }

    static final class Owner {
        final String name;
        final short age;
        Owner(String name, short age) { this.name = name; this.age = age; }
    }

    static final class Account {
        final String name;
        long balance = 100;
        final int[] history = new int[3];
        final Owner owner;
        byte flags;
        char grade = 'A';
        Account(String name, Owner owner) { this.name = name; this.owner = owner; }
    }

    static final class Op {
        final int id;
        final Kind kind;
        final int from, to;
        final long amount;
        final Long fee;
        final String memo;
        Op(int id, Kind kind, int from, int to, long amount, Long fee, String memo) {
            this.id = id; this.kind = kind; this.from = from; this.to = to;
            this.amount = amount; this.fee = fee; this.memo = memo;
        }
    }

    final Account[] accounts = {
        new Account("alice", new Owner("Alice Smith", (short) 34)),
        new Account("bob", null),
        new Account("chloé", new Owner("Chloé Dupont", (short) -1)),
        new Account("dmitri-with-a-name-longer-than-thirty-two-bytes", null),
    };
    final List<String> log = new ArrayList<>();
    final Map<String, Integer> applied = new HashMap<>();
    final AtomicLong ops = new AtomicLong();
    Audit audit = new Lenient();
    boolean frozen;

    /* One operation: its outcome, logged with what the spec reads. */
    boolean apply(Op op) {
        Account from = accounts[op.from], to = accounts[op.to];
        long fee = op.fee == null ? 0 : op.fee;
        boolean ok = audit.allows(op.amount) && (op.kind == Kind.DEPOSIT || from.balance >= op.amount + fee);
        if (ok) {
            switch (op.kind) {
            case DEPOSIT: from.balance += op.amount; break;
            case WITHDRAW: from.balance -= op.amount + fee; break;
            default: from.balance -= op.amount + fee; to.balance += op.amount; break;
            }
            from.history[op.id % 3] = (int) op.amount;
            from.flags ^= (byte) (1 << (op.id % 7));
            applied.merge(from.name, 1, Integer::sum);
        }
        ops.incrementAndGet();
        log.add(op.memo);
        System.out.println("apply id=" + op.id + " thread=" + Thread.currentThread().getName()
            + " kind=" + op.kind + " from=" + op.from + " to=" + op.to + " amount=" + op.amount
            + " fee=" + (op.fee == null ? "none" : op.fee) + " memo=" + op.memo + " ok=" + ok
            + " ops=" + ops.get() + " log=" + log.size() + " names=" + applied.size()
            + " flags0=" + accounts[0].flags + " grade0=" + (int) accounts[0].grade
            + " strict=" + (audit instanceof Strict ? Long.toString(((Strict) audit).limit) : "none")
            + " balances=" + accounts[0].balance + "," + accounts[1].balance + ","
            + accounts[2].balance + "," + accounts[3].balance);
        return ok;
    }

    static long total(Ledger l) {
        long t = 0;
        for (Account a : l.accounts)
            t += a.balance;
        return t;
    }

    /* A loop at its first instruction: an entry probe would fire each round. */
    static int rounds(int n) {
        while (n > 10)
            n -= 10;
        return n;
    }

    /* Workers take turns: worker w runs operations w, w + n, ... in order. */
    public static void main(String[] args) throws Exception {
        final int workers = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        final int count = args.length > 1 ? Integer.parseInt(args[1]) : 12;
        final Ledger l = new Ledger();
        final Object lock = new Object();
        final int[] turn = { 0 };
        Thread[] ts = new Thread[workers];
        for (int w = 0; w < workers; w++) {
            final int me = w;
            ts[w] = new Thread(() -> {
                for (int i = me; i < count; i += workers) {
                    synchronized (lock) {
                        while (turn[0] != i) {
                            try { lock.wait(); } catch (InterruptedException e) { return; }
                        }
                        Kind k = Kind.values()[i % 3];
                        Long fee = i % 4 == 1 ? Long.valueOf(i) : null;
                        if (i == count / 2)
                            l.audit = new Strict(15);
                        l.apply(new Op(i, k, i % 4, (i + 1) % 4, 5 * i + 1, fee, "op-" + i + (i % 5 == 0 ? "-ünïcode" : "")));
                        turn[0]++;
                        lock.notifyAll();
                    }
                }
            }, "worker-" + w);
            ts[w].start();
        }
        for (Thread t : ts)
            t.join();
        System.out.println("total " + total(l) + " rounds " + rounds(count));
        /* How a run may end: an exit status, or killed (the VM never ends). */
        if (args.length > 2 && args[2].equals("exit"))
            System.exit(4);
        if (args.length > 2 && args[2].equals("kill"))
            new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid()))
                .start().waitFor();
    }
}
