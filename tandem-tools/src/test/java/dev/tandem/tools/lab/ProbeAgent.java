package dev.tandem.tools.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny program the lab tests run inside a host namespace ({@code ip netns exec NS java -cp ... ProbeAgent}):
 * it listens on every address of its host and tries TCP connections on request. Only the JDK is needed.
 *
 * <p>Protocol, one line each way: it prints {@code ready PORT} once listening. To a line
 * {@code probe TIMEOUT_MS SRC>DST:PORT ...} it answers {@code result R ...}, one word per pair: {@code connected},
 * {@code timeout} (nothing came back within the bound: a black hole), or the error, spaces as {@code _}
 * (e.g. {@code No_route_to_host}). All connects of a line run at once, so a line takes at most its timeout.
 * It ends when its stdin ends. The listener never accepts: the kernel completes handshakes into its backlog.
 */
public final class ProbeAgent {
    private ProbeAgent() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (ServerSocketChannel listener = ServerSocketChannel.open();
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            listener.bind(new InetSocketAddress(0), 4096);
            out.println("ready " + ((InetSocketAddress) listener.getLocalAddress()).getPort());
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] words = line.strip().split("\\s+");
                if (words.length < 3 || !words[0].equals("probe")) {
                    out.println("error expected 'probe TIMEOUT_MS SRC>DST:PORT ...', got: " + line);
                    continue;
                }
                List<String[]> pairs = new ArrayList<>();
                for (int i = 2; i < words.length; i++) {
                    pairs.add(words[i].split("[>:]"));
                }
                out.println("result " + String.join(" ", probe(Long.parseLong(words[1]), pairs)));
            }
        }
    }

    /** Connects from each {src, dst, port} at once; the outcome of each, in order. */
    private static List<String> probe(long timeoutMs, List<String[]> pairs) throws IOException {
        String[] outcome = new String[pairs.size()];
        List<SocketChannel> channels = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < pairs.size(); i++) {
                String[] p = pairs.get(i);
                SocketChannel ch = SocketChannel.open();
                channels.add(ch);
                try {
                    ch.configureBlocking(false);
                    ch.bind(new InetSocketAddress(InetAddress.getByName(p[0]), 0));
                    if (ch.connect(new InetSocketAddress(InetAddress.getByName(p[1]), Integer.parseInt(p[2])))) {
                        outcome[i] = "connected";
                    } else {
                        ch.register(selector, SelectionKey.OP_CONNECT, i);
                    }
                } catch (IOException e) {
                    outcome[i] = word(e);
                }
            }
            long deadline = System.nanoTime() + timeoutMs * 1_000_000;
            while (!selector.keys().isEmpty()) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                selector.select(left);
                for (SelectionKey key : selector.selectedKeys()) {
                    int i = (Integer) key.attachment();
                    try {
                        if (((SocketChannel) key.channel()).finishConnect()) {
                            outcome[i] = "connected";
                            key.cancel();
                        }
                    } catch (IOException e) {
                        outcome[i] = word(e);
                        key.cancel();
                    }
                }
                selector.selectedKeys().clear();
                selector.selectNow();   // drops the cancelled keys from keys(), which ends the loop when all are done
            }
        } finally {
            for (SocketChannel ch : channels) {
                ch.close();
            }
        }
        List<String> words = new ArrayList<>();
        for (String o : outcome) {
            words.add(o == null ? "timeout" : o);
        }
        return words;
    }

    private static String word(IOException e) {
        return String.valueOf(e.getMessage()).strip().replaceAll("\\s+", "_");
    }
}
