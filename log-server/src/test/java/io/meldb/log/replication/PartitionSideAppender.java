package io.meldb.log.replication;

import io.meldb.log.LogErrorException;
import io.meldb.log.client.LogClient;
import io.meldb.log.client.LogClientOptions;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A log client run inside one node's network namespace by {@link ReplicatedLogPartitionTest}: the client on the cut-off
 * side of a partition, which the test's own JVM (in the root namespace) cannot be. It connects to one log server,
 * prints {@code connected}, waits for a line on stdin, sends {@code count} appends at once (block {@code i} holds
 * {@code prefix-i}) and prints each answer: {@code ack i position} or {@code refused i CODE message}, then {@code done}.
 *
 * <p>Arguments: host port blockSize count prefix requestTimeoutMillis.
 */
public final class PartitionSideAppender {
    private PartitionSideAppender() {
    }

    public static void main(final String[] args) throws Exception {
        final String host = args[0];
        final int port = Integer.parseInt(args[1]);
        final int blockSize = Integer.parseInt(args[2]);
        final int count = Integer.parseInt(args[3]);
        final String prefix = args[4];
        final Duration timeout = Duration.ofMillis(Long.parseLong(args[5]));
        try (LogClient client = LogClient.connect(LogClientOptions.to(host, port).requestTimeout(timeout))) {
            System.out.println("connected");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            final List<CompletableFuture<Long>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(client.append(Arrays.copyOf((prefix + "-" + i).getBytes(StandardCharsets.US_ASCII), blockSize)));
            }
            for (int i = 0; i < count; i++) {
                try {
                    System.out.println("ack " + i + " " + sent.get(i).get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS));
                } catch (TimeoutException e) {
                    System.out.println("refused " + i + " TIMEOUT no answer within " + timeout.multipliedBy(2));
                } catch (ExecutionException e) {
                    final Throwable c = e.getCause();
                    final String code = c instanceof LogErrorException le ? le.code().name() : c.getClass().getSimpleName();
                    System.out.println("refused " + i + " " + code + " " + String.valueOf(c.getMessage()).replace('\n', ' '));
                }
                System.out.flush();
            }
        }
        System.out.println("done");
        System.out.flush();
    }
}
