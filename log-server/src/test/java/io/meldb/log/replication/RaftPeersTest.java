package io.meldb.log.replication;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The --peers list: each replica's Raft and log address, one group id for the same peers, clear refusals. */
class RaftPeersTest {

    @Test
    void parsesRaftAndLogPortsWithTheServersOwnPortAsTheDefault() {
        final RaftPeers peers = RaftPeers.parse("a=h1:9100:7420, b=h2:9100,c=h3:9101:7000", 7555);
        assertEquals(3, peers.size());
        assertEquals("h1:9100", peers.peer("a").raftAddress());
        assertEquals("h1:7420", peers.peer("a").clientAddress());
        assertEquals("h2:7555", peers.peer("b").clientAddress(), "no log port: this server's own --port");
        assertEquals("h3:7000", peers.peer("c").clientAddress());
        assertNull(peers.peer("d"));
    }

    @Test
    void theGroupIdDependsOnlyOnThePeerIds() {
        assertEquals(RaftPeers.parse("a=h1:1,b=h2:2,c=h3:3", 9).group().getGroupId(),
            RaftPeers.parse("c=x:7,a=y:8,b=z:9", 9).group().getGroupId(), "every replica computes the same group");
        assertTrue(!RaftPeers.parse("a=h1:1,b=h2:2", 9).group().getGroupId()
            .equals(RaftPeers.parse("a=h1:1,d=h2:2", 9).group().getGroupId()));
    }

    @Test
    void refusesMalformedEntriesDuplicatesAndBadPortsNamingThem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RaftPeers.parse("a=h1", 1)).getMessage()
            .contains("'a=h1' is not id=host:raftPort[:logPort]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RaftPeers.parse("h1:9", 1)).getMessage()
            .contains("is not id=host:raftPort"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RaftPeers.parse("a=h1:1,a=h2:2", 1)).getMessage()
            .contains("names 'a' twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RaftPeers.parse("a=h1:1,b=h1:1", 1)).getMessage()
            .contains("Raft address h1:1 twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RaftPeers.parse("a=h1:70000", 1)).getMessage()
            .contains("'70000' is not a port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RaftPeers.parse("a b=h1:1", 1)).getMessage()
            .contains("may hold only"));
        assertThrows(IllegalArgumentException.class, () -> RaftPeers.parse(" ", 1));
    }

    @Test
    void optionsRefuseAFactorThatIsNotThePeerCountOrAnIdNotAmongThem() {
        final RaftPeers three = RaftPeers.parse("a=h:1,b=h:2,c=h:3", 9);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ReplicationOptions(5, "a", three))
            .getMessage().contains("--replication-factor 5 but --peers lists 3"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ReplicationOptions(3, "d", three))
            .getMessage().contains("--node-id 'd' is not one of --peers"));
        assertEquals("b", new ReplicationOptions(3, "b", three).nodeId());
    }
}
