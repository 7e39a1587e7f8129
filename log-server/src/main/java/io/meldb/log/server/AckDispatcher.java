package io.meldb.log.server;

import io.meldb.log.LogStore;
import io.meldb.wire.Mailbox;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Carries acknowledgements from the store's writer thread to the connections' event loops one storage batch at a
 * time (the append path of the Hyder II §5.1 log service). The writer files each acknowledgement with its
 * connection's event loop without waking it; when the batch is published (this tail listener runs after the batch's
 * callbacks, see {@link LogStore}) each event loop that got acknowledgements is woken once, writes them all and
 * flushes each of its connections once.
 *
 * <p>Why not wake an event loop at its first acknowledgement: the wake-up lets the event loop preempt the writer in
 * the middle of its batch (on a 2-CPU machine most of the writer's involuntary context switches came right after
 * such a wake-up), and the rest of the batch then needed further wake-ups and flushes.
 */
final class AckDispatcher implements LogStore.TailListener {
    private final ConcurrentHashMap<EventExecutor, LoopAcks> loops = new ConcurrentHashMap<>();
    /** Writer thread: event loops with acknowledgements filed since the last publication. */
    private final List<LoopAcks> filed = new ArrayList<>();

    /** The acknowledgement queue of one event loop (created on its first connection). */
    LoopAcks forLoop(EventExecutor executor) {
        return loops.computeIfAbsent(executor, LoopAcks::new);
    }

    @Override
    public void tailAdvanced(long newTail) {
        for (LoopAcks l : filed) {
            l.filed = false;
            l.schedule();
        }
        filed.clear();
    }

    /** Acknowledgements bound for the connections of one event loop. */
    final class LoopAcks extends Mailbox<LogServerHandler.Ack> {
        /** Writer thread: already in {@link AckDispatcher#filed}. */
        private boolean filed;
        /** Event loop: connections written to in the current delivery, each to be flushed once. */
        private final List<LogServerHandler> toFlush = new ArrayList<>();

        private LoopAcks(EventExecutor executor) {
            super(executor);
        }

        /** Writer thread, for a stored block: delivered when the batch is published. */
        void file(LogServerHandler.Ack ack) {
            offer(ack);
            if (!filed) {
                filed = true;
                AckDispatcher.this.filed.add(this);
            }
        }

        @Override
        protected void deliver(LogServerHandler.Ack ack) {
            LogServerHandler h = ack.handler;
            if (h.writeAck(ack)) {
                toFlush.add(h);
            }
        }

        @Override
        protected void delivered() {
            // by index: a flush may deliver again inside this loop (an EmbeddedChannel runs its pending tasks when
            // flushed), which then writes the same list; acksWritten twice is harmless
            for (int i = 0; i < toFlush.size(); i++) {
                toFlush.get(i).acksWritten();
            }
            toFlush.clear();
        }

        @Override
        protected void rejected(LogServerHandler.Ack ack) {
            // the event loop is shut down with the server; the client sees the connection close
            ack.releaseBlock();
        }
    }
}
