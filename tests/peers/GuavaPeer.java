// Runs Guava's own RateLimiter.create(permitsPerSecond) (SmoothBursty) with its stopwatch replaced
// by the arrival times (whole microseconds, one a line on stdin), as Guava's RateLimiterTest does
// with its FakeStopwatch (hence this package), asking tryAcquire(1, 0, MICROSECONDS) for each.
// Prints 1 or 0 per arrival. Usage: java -cp guava.jar:. com.google.common.util.concurrent.GuavaPeer PPS
package com.google.common.util.concurrent;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.TimeUnit;

public final class GuavaPeer {
    static final class Clock extends RateLimiter.SleepingStopwatch {
        long micros;

        @Override
        protected long readMicros() {
            return micros;
        }

        @Override
        protected void sleepMicrosUninterruptibly(long m) {
            // tryAcquire with a timeout of 0 never waits: time is given by the arrivals.
        }
    }

    public static void main(String[] args) throws Exception {
        Clock clock = new Clock();
        RateLimiter limiter = RateLimiter.create(Double.parseDouble(args[0]), clock);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null;) {
            if (line.isEmpty())
                continue;
            clock.micros = Long.parseLong(line.trim());
            out.append(limiter.tryAcquire(1, 0, TimeUnit.MICROSECONDS) ? "1\n" : "0\n");
        }
        System.out.print(out);
    }
}
