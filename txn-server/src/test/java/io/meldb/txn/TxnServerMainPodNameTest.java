package io.meldb.txn;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TxnServerMainPodNameTest {

    @Test
    void serverIdIsTheStatefulSetOrdinalPlusOne() {
        assertEquals(1, TxnServerMain.serverIdOfPod("meldb-txn-0"));
        assertEquals(3, TxnServerMain.serverIdOfPod("my-release-meldb-txn-2"));
        assertEquals(65535, TxnServerMain.serverIdOfPod("txn-65534"));
    }

    @Test
    void podNameOverridesServerIdFlag() {
        Map<String, String> v = io.meldb.wire.CommandFlags.parse(flagsForTest(),
            new String[] {"--server-id", "9", "--pod-name", "meldb-txn-4"});
        assertEquals(5, TxnServerMain.configure(v).serverId());
    }

    @Test
    void aNameWithoutOrdinalIsRefusedNamingTheFlag() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> TxnServerMain.serverIdOfPod("meldb-txn"));
        assertTrue(e.getMessage().contains("--pod-name"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TxnServerMain.serverIdOfPod("meldb-txn-"));
        assertThrows(IllegalArgumentException.class, () -> TxnServerMain.serverIdOfPod("txn-65535"));
        assertThrows(IllegalArgumentException.class, () -> TxnServerMain.serverIdOfPod("txn-9999999999"));
    }

    private static String[][] flagsForTest() {
        return TxnServerMain.flags();
    }
}
