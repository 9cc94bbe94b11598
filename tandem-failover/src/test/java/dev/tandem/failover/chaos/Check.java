package dev.tandem.failover.chaos;

/**
 * What a violation broke: one name per promise or rule the chaos checker holds the device to, so a
 * report can count them apart and a reader sees at once which promise failed.
 */
enum Check {
    /** A message a sender posted never reached the receiver's application (a gap, or a tail that never came). */
    LOST("message lost"),
    /** A message reached the receiver's application twice, or after a later one. */
    DUPLICATED("message duplicated or late"),
    /** A message's bytes, length or header differ from what the sender posted. */
    CORRUPT("message corrupt"),
    /** A message of another connection or direction arrived. */
    CROSSTALK("message of another stream"),
    /** The bytes an RDMA Write placed are not those posted (checked when the Send naming it arrives). */
    WRITE("written bytes wrong"),
    /** An RDMA Read returned bytes other than the peer's known bytes. */
    READ("read bytes wrong"),
    /** A response does not answer the request it follows. */
    RESPONSE("response mismatch"),
    /** The peer's credit word went backwards: a Write to the same place was placed again after a later one. */
    WRITE_ORDER("write replayed or reordered"),
    /** A signalled request (or a receive) had no completion when traffic drained. */
    NO_OUTCOME("request without outcome"),
    /** Send-queue completions out of posting order, twice, skipped, or for a request never posted. */
    SEND_ORDER("send completion order"),
    /** Receive completions out of the order their buffers were posted, or a buffer completing twice. */
    RECEIVE_ORDER("receive completion order"),
    /** A completion with the wrong opcode, length, QP number or flags. */
    COMPLETION("completion fields"),
    /** An error completion where the promise allows none, or a status the verbs do not allow there. */
    STATUS("error completion"),
    /** A queue pair left RTS while a path remained. */
    QP_STATE("QP left RTS"),
    /** A verb threw. */
    EXCEPTION("verb threw"),
    /** Traffic did not drain in time: a stream or a request stopped making progress. */
    STALL("stalled"),
    /** With both adapters of a node gone, a connection did not end cleanly in time. */
    END("connection did not end"),
    /** With both adapters of a node gone, a Send the sender saw succeed never reached the receiver. */
    UNDELIVERED("acknowledged Send undelivered"),
    /** Paths did not come back to their full count after a fault was undone. */
    HEAL("paths did not heal"),
    /** A thread of the stack (or the harness) outlived the scenario. */
    THREADS("threads left"),
    /** A socket, pipe or event descriptor outlived the scenario. */
    DESCRIPTORS("descriptors left"),
    /** Closing a resource or a device failed or reported leaks. */
    CLOSE("close failed or leaked"),
    /** The harness itself could not set up or run the scenario. */
    HARNESS("harness");

    private final String words;

    Check(String words) {
        this.words = words;
    }

    /** The few words a report shows for it. */
    String words() {
        return words;
    }
}
