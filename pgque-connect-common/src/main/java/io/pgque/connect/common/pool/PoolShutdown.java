/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.pool;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Closes a pool without letting a hung database hold up a task's {@code stop()}. Hikari's
 * close aborts the connections still in use (which ends the calls stuck on them), but only
 * after waiting for a connection being opened, up to the login timeout, and it may then wait
 * up to ten seconds more for its own executors. So the close runs on a thread of its own and
 * the caller waits for it only so long; the rest finishes in the background.
 */
public final class PoolShutdown {

    private static final Logger log = LoggerFactory.getLogger(PoolShutdown.class);

    private PoolShutdown() {
    }

    /**
     * Closes {@code pools} (nulls are skipped) at the same time, waiting at most {@code bound}
     * in all.
     *
     * @return whether every pool was closed within the bound
     */
    public static boolean close(Duration bound, HikariDataSource... pools) {
        List<Thread> closers = new ArrayList<>();
        for (HikariDataSource pool : pools) {
            if (pool != null && !pool.isClosed()) {
                Thread closer = new Thread(pool::close, pool.getPoolName() + " close");
                closer.setDaemon(true);
                closer.start();
                closers.add(closer);
            }
        }
        long end = System.nanoTime() + bound.toNanos();
        boolean closed = true;
        for (Thread closer : closers) {
            try {
                closer.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (closer.isAlive()) {
                log.warn("{} is still running after {} ms (the database does not answer); the pool's connections "
                        + "are aborted in the background", closer.getName(), bound.toMillis());
                closed = false;
            }
        }
        return closed;
    }
}
