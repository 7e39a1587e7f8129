package io.meldb.log.client;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where a client's connection goes next: the leader an answer names, else the next replica in turn. */
class ReplicaAddressesTest {

    @Test
    void movesOnInTurnAndFollowsTheLeaderAnAnswerNames() {
        final ReplicaAddresses r = new ReplicaAddresses(List.of("a:1", "b:2", "c:3"));
        assertTrue(r.several());
        assertEquals("a:1", r.currentName());
        r.moveOn();
        assertEquals("b:2", r.currentName());
        r.follow("NOT_LEADER: log server n2 is not the leader of the replicated log; nothing was appended; leader at c:3");
        assertEquals("c:3", r.currentName());
        r.follow("log server n3 is not the leader; leader unknown");
        assertEquals("a:1", r.currentName(), "no leader named: the next in turn");
        r.follow("leader at d:4");
        assertEquals("d:4", r.currentName(), "a leader outside the list is added");
        assertEquals(4, r.size());
    }

    @Test
    void aTailAnswerSendsAnAppendConnectionToTheLeaderAndOnFromAReplicaThatKnowsNone() {
        final ReplicaAddresses r = new ReplicaAddresses(List.of("a:1", "b:2", "c:3"));
        assertEquals(null, r.redirect("a:1", true), "at the leader: stay");
        assertEquals("log server a:1 names c:3 as the leader", r.redirect("c:3", true));
        assertEquals("c:3", r.currentName());
        assertEquals("log server c:3 knows no leader", r.redirect(null, true));
        assertEquals("a:1", r.currentName(), "the next in turn");
        assertEquals(null, r.redirect(null, false), "a subscription reads from any replica");
        assertEquals("a:1", r.currentName());
    }

    @Test
    void oneAddressIsTheSingleServerClient() {
        final ReplicaAddresses r = new ReplicaAddresses(List.of("h:7420"));
        assertFalse(r.several());
        r.moveOn();
        assertEquals("h:7420", r.currentName());
    }

    @Test
    void optionsParseAListAndRefuseMalformedAddresses() {
        final LogClientOptions o = LogClientOptions.toAll("h1:1, h2:2,h3:3");
        assertEquals(List.of("h1:1", "h2:2", "h3:3"), o.addresses());
        assertEquals("h1", o.host());
        assertEquals(1, o.port());
        assertEquals(List.of("x:9"), LogClientOptions.to("x", 9).addresses());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogClientOptions.toAll("h1:1,h2"))
            .getMessage().contains("'h2' is not host:port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogClientOptions.toAll("h1:x"))
            .getMessage().contains("no valid port"));
        assertThrows(IllegalArgumentException.class, () -> LogClientOptions.toAll(","));
    }
}
