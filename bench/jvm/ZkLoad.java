// SPDX-License-Identifier: MIT
// bench/zookeeper-throughput's client: C sessions, each its own znode,
// setData then getData in a loop for S seconds (writes go through the
// leader and a quorum); prints the operations per second of all of them.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

public class ZkLoad {
    public static void main(String[] args) throws Exception {
        String connect = args[0];
        int seconds = Integer.parseInt(args[1]), clients = Integer.parseInt(args[2]);
        AtomicLong ops = new AtomicLong();
        Thread[] ts = new Thread[clients];
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        byte[] data = new byte[64];

        for (int c = 0; c < clients; c++) {
            final String path = "/bench-" + c;
            ts[c] = new Thread(() -> {
                try {
                    CountDownLatch up = new CountDownLatch(1);
                    ZooKeeper zk = new ZooKeeper(connect, 10000, e -> {
                        if (e.getState() == Watcher.Event.KeeperState.SyncConnected)
                            up.countDown();
                    });
                    up.await();
                    if (zk.exists(path, false) == null)
                        zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    while (System.nanoTime() < end) {
                        zk.setData(path, data, -1);
                        zk.getData(path, false, null);
                        ops.addAndGet(2);
                    }
                    zk.close();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            ts[c].start();
        }
        for (Thread t : ts)
            t.join();
        System.out.printf("%.0f%n", ops.get() / (double) seconds);
    }
}
