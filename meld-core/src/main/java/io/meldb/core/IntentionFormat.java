package io.meldb.core;

/**
 * Layout of a serialized intention, the record {@link IntentionEncoder} writes and {@link IntentionDecoder} reads
 * (meld paper §4.1 and App. E; Hyder II §5.2). Shared constants only.
 *
 * <pre>
 *  header  | version u8 | isolation u8 | intention flags u8 | snapshotCsn varlong | nodeCount varint | rangeCount varint |
 *  range   | flags u8 (Intention.RANGE_*) | [loLen varint, lo bytes] unless LO_UNBOUNDED | [hiLen varint, hi bytes] unless HI_UNBOUNDED |
 *  node    | nodeFlags u8 (Node flag bits) | pointerKinds u8 | [ext u8] | height varint | [scv ref] | [ssv ref] |
 *          | keyLen varint, key | [payloadLen varint, payload] unless TOMBSTONE or payload ref | [payload ref] |
 *          | [history 16 bytes] |
 *          | [columns varlong] | left pointer | right pointer |
 *
 *  pointerKinds:  bit 7      6        5        4       3 2         1 0
 *                 extended increment hasSsv   hasScv   right kind  left kind     kind: 0 null, 1 local, 2 external
 *  ext (version 2 only, when extended):  bit 0 history, bit 1 columns, bit 2 payload ref (alone)
 *  an increment node (Node.INCREMENT) has a payload that ends with an Increment descriptor
 *  history: the content's increment history right after the payload (ColumnReads: base VN, incremented byte mask,
 *           big-endian), so a decoded node's payload is followed by it in place
 *  columns: the value bytes a read (DEPENDS_ON) used, a nonzero ColumnReads mask
 *  payload ref: a version ref to the committed node this unaltered, unread path copy was made from; the node has
 *           that node's payload and increment history (most of an intention's nodes are such copies: the paths
 *           above what it wrote and read, whose bytes every replica already holds)
 *  version ref / external pointer:  csnDelta varlong (snapshotCsn - csnOf(v)) | low varint (v &amp; 0xFFFFFF)
 *  local pointer:                   indexDelta varint (ownIndex - childIndex, &gt; 0)
 * </pre>
 *
 * Nodes are written in post order, so a node's local children precede it and the root is the last node. No VN is
 * stored: the reader derives {@code Versions.vn(csn, KIND_PERSISTED, index)} from the intention's CSN (its ordinal
 * in the log) and the node's post-order index (meld paper §4.1: "version numbers of new nodes are not explicitly
 * stored in the log"). Versions and pointers into committed state are stored relative to the snapshot: every node a
 * transaction could see has {@code csnOf(v) <= snapshotCsn}, and recent states are the common case, so the CSN
 * delta is usually one byte (the paper's "offset ... with fewer bits than would be needed to refer to CSN(I)").
 */
public final class IntentionFormat {
    /** The format without extension bytes; still read. */
    public static final byte VERSION = 1;
    /** The format a record is written in when a node has an extension byte (column reads, increment history). */
    public static final byte VERSION_EXTENDED = 2;

    public static final int VERSION_OFFSET = 0;
    public static final int ISOLATION_OFFSET = 1;
    public static final int FLAGS_OFFSET = 2;
    /** Offset of the first varint (snapshotCsn). */
    public static final int VARINT_HEADER_OFFSET = 3;

    public static final int POINTER_NULL = 0;
    public static final int POINTER_LOCAL = 1;
    public static final int POINTER_EXTERNAL = 2;
    public static final int POINTER_KIND_MASK = 3;
    public static final int LEFT_KIND_SHIFT = 0;
    public static final int RIGHT_KIND_SHIFT = 2;
    public static final int HAS_SCV = 1 << 4;
    public static final int HAS_SSV = 1 << 5;
    /** In the pointer-kinds byte: the node is a {@link Node#INCREMENT} (the node flags byte has no bit left). */
    public static final int INCREMENT = 1 << 6;
    /** In the pointer-kinds byte: an extension byte follows (version 2). */
    public static final int EXTENDED = 1 << 7;
    public static final int POINTER_KINDS_MASK = 0x7F;
    public static final int POINTER_KINDS_MASK_EXTENDED = 0xFF;
    /** Extension bit: {@link Node#HISTORY}, 16 bytes after the payload. */
    public static final int EXT_HISTORY = 1;
    /** Extension bit: a read's byte mask ({@link Node#columns}) follows. */
    public static final int EXT_COLUMNS = 2;
    /**
     * Extension bit, only ever alone: the payload is a version ref to the committed node (in the snapshot) the node
     * was copied from, whose NCV must be the node's SCV; the node takes that node's payload and increment history.
     */
    public static final int EXT_PAYLOAD_REF = 4;
    public static final int EXT_MASK = EXT_HISTORY | EXT_COLUMNS | EXT_PAYLOAD_REF;

    /** The node flags the format carries, bit for bit as in {@link Node}. */
    public static final int NODE_FLAGS_MASK = Node.ALTERED | Node.DEPENDS_ON | Node.SUBTREE_IS_ONLY_READ_DEPENDENT
        | Node.TOMBSTONE | Node.SPAN_EXTENDED;
    /**
     * Node flags that summarize the subtree, like height and maxCv: the encoder drops them and the decoder's
     * {@link Node#updateDerived} recomputes them, so they can never disagree with the tree they describe.
     */
    public static final int DERIVED_NODE_FLAGS = Node.EPHEMERAL_BELOW | Node.EXTERNAL_LEFT | Node.EXTERNAL_RIGHT
        | Node.INCREMENT_BELOW;
    /** The range flags the format carries, bit for bit as in {@link Intention}. */
    public static final int RANGE_FLAGS_MASK = Intention.RANGE_LO_UNBOUNDED | Intention.RANGE_LO_INCLUSIVE
        | Intention.RANGE_HI_UNBOUNDED | Intention.RANGE_HI_INCLUSIVE;

    /** The low 24 bits of a VN: kind and index within its CSN (see {@link Versions}). */
    public static final long VN_LOW_MASK = 0xFF_FFFFL;
    public static final int VN_CSN_SHIFT = 24;

    /** Smallest encoded node: flags, kinds, height, keyLen 0, tombstone (no payload), no children. */
    public static final int MIN_NODE_BYTES = 4;
    /** Smallest header: three bytes and three one-byte varints. */
    public static final int MIN_HEADER_BYTES = 6;
    /**
     * Largest intention record: the block format's bound. A record larger than an arena segment is decoded into a
     * dedicated large segment (see {@link Arena}).
     */
    public static final int MAX_RECORD_LENGTH = BlockFormat.MAX_RECORD_LENGTH;
    /**
     * Decoded ranges live in one arena allocation ({@link Intention#RANGE_SIZE} bytes each, a large segment past
     * 4 MiB); a serializable transaction records one per insert of a new key, so this matches {@link #MAX_NODES}.
     */
    public static final int MAX_RANGES = Versions.MAX_INDEX + 1;
    /** Post-order indices must fit the VN's index field. */
    public static final int MAX_NODES = Versions.MAX_INDEX + 1;
    /** Largest CSN whose VNs fit a positive long. */
    public static final long MAX_CSN = Long.MAX_VALUE >>> VN_CSN_SHIFT;

    private IntentionFormat() {
    }
}
