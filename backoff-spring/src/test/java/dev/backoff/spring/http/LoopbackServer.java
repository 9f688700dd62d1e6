package dev.backoff.spring.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real HTTP/1.1 server on loopback for the HTTP client tests: it answers each request with
 * the next scripted reply (a status with headers and body, a connection reset, a body that
 * never ends, no answer at all), records
 * every request it received (method, headers, body), and closes each connection after one
 * exchange. A plain socket server rather than a framework's, so that it can reset a
 * connection.
 */
final class LoopbackServer implements AutoCloseable {

	private static final int SILENT = -1;

	private final ServerSocket socket;

	private final ConcurrentLinkedQueue<Reply> replies = new ConcurrentLinkedQueue<>();

	private final List<Request> requests = new CopyOnWriteArrayList<>();

	private final Thread acceptor;

	private final List<Socket> stalled = new CopyOnWriteArrayList<>();

	LoopbackServer() throws IOException {
		this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.acceptor = new Thread(this::serve, "loopback-server");
		this.acceptor.setDaemon(true);
		this.acceptor.start();
	}

	String url() {
		return "http://127.0.0.1:" + this.socket.getLocalPort();
	}

	/** Adds replies to the script; when it runs out, every request gets 200 "ok". */
	LoopbackServer reply(Reply... replies) {
		Collections.addAll(this.replies, replies);
		return this;
	}

	List<Request> requests() {
		return this.requests;
	}

	private void serve() {
		while (!this.socket.isClosed()) {
			Socket connection = null;
			try {
				connection = this.socket.accept();
				if (exchange(connection)) {
					// A silent or stalled reply: its connection stays open until the server closes.
					connection = null;
				}
			}
			catch (IOException ex) {
				// The client went away, or the server closed: nothing to answer.
			}
			finally {
				closeQuietly(connection);
			}
		}
	}

	/** @return whether the connection is to stay open */
	private boolean exchange(Socket connection) throws IOException {
		InputStream in = connection.getInputStream();
		String[] requestLine = line(in).split(" ");
		Map<String, String> headers = new LinkedHashMap<>();
		for (String header = line(in); !header.isEmpty(); header = line(in)) {
			int colon = header.indexOf(':');
			headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
		}
		Reply reply = this.replies.poll();
		if (reply == null) {
			reply = Reply.status(200, "ok");
		}
		if (reply.readBeforeReset() >= 0) {
			// Reads part of the body as it comes (chunk headers and all), then resets mid-body.
			in.readNBytes(reply.readBeforeReset());
			connection.setSoLinger(true, 0);
			return false;
		}
		byte[] body;
		if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
			ByteArrayOutputStream chunks = new ByteArrayOutputStream();
			for (int size = Integer.parseInt(line(in).trim(), 16); size > 0; size = Integer.parseInt(line(in).trim(), 16)) {
				chunks.write(in.readNBytes(size));
				line(in);
			}
			line(in);
			body = chunks.toByteArray();
		}
		else {
			body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
		}
		Request request = new Request(requestLine[0], requestLine[1], headers, body);
		if (reply.status() == SILENT) {
			// No answer at all, the connection left open: the slow tail of a dependency. Kept
			// before the request is seen, so that a test that saw it finds the connection.
			this.stalled.add(connection);
			this.requests.add(request);
			return true;
		}
		this.requests.add(request);
		if (reply.reset) {
			// SO_LINGER 0: close sends a RST, the client reads "connection reset".
			connection.setSoLinger(true, 0);
			return false;
		}
		byte[] content = reply.body().getBytes(StandardCharsets.UTF_8);
		StringBuilder head = new StringBuilder("HTTP/1.1 " + reply.status() + " Status\r\n");
		reply.headers().forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
		// A stalled reply announces a body longer than it sends, and never sends the rest.
		head.append("Content-Type: text/plain;charset=UTF-8\r\nContent-Length: ")
			.append(content.length + (reply.stall() ? 1 : 0))
			.append("\r\nConnection: close\r\n\r\n");
		OutputStream out = connection.getOutputStream();
		out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
		out.write(content);
		out.flush();
		if (reply.stall()) {
			this.stalled.add(connection);
			return true;
		}
		return false;
	}

	/**
	 * Waits, bounded by a read timeout rather than a sleep, for the client to close the
	 * connection of a reply left open (silent or stalled), in the order they were accepted.
	 * @return whether the client closed it (or reset it) within the timeout
	 */
	boolean closedByClient(int index, Duration timeout) throws IOException {
		Socket connection = this.stalled.get(index);
		connection.setSoTimeout((int) timeout.toMillis());
		try {
			return connection.getInputStream().read() < 0;
		}
		catch (SocketTimeoutException ex) {
			return false;
		}
		catch (SocketException ex) {
			// Reset by the client: closed too.
			return true;
		}
	}

	private static void closeQuietly(Socket connection) {
		if (connection != null) {
			try {
				connection.close();
			}
			catch (IOException ex) {
				// Closing anyway.
			}
		}
	}

	/** @return one line of a request head, its CR LF left out */
	static String line(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		for (int c = in.read(); c != '\n'; c = in.read()) {
			if (c < 0) {
				throw new IOException("connection closed mid-request");
			}
			if (c != '\r') {
				line.append((char) c);
			}
		}
		return line.toString();
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
		this.stalled.forEach(LoopbackServer::closeQuietly);
	}

	/**
	 * A scripted reply: a response, or a connection reset (after the whole request, or after
	 * {@code readBeforeReset} bytes of its body); a stalled response never ends its body.
	 */
	record Reply(int status, Map<String, String> headers, String body, boolean reset, int readBeforeReset,
			boolean stall) {

		/** A request read whole and never answered, its connection left open until the server closes. */
		static Reply silent() {
			return new Reply(SILENT, Map.of(), "", false, -1, false);
		}

		static Reply status(int status, String body) {
			return new Reply(status, Map.of(), body, false, -1, false);
		}

		static Reply status(int status, String body, String header, String value) {
			return new Reply(status, Map.of(header, value), body, false, -1, false);
		}

		static Reply connectionReset() {
			return new Reply(0, Map.of(), "", true, -1, false);
		}

		static Reply resetAfterReading(int bytes) {
			return new Reply(0, Map.of(), "", true, bytes, false);
		}

		static Reply stalled(int status, String bodyStart) {
			return new Reply(status, Map.of(), bodyStart, false, -1, true);
		}

		static Reply[] times(int count, Reply reply) {
			List<Reply> replies = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				replies.add(reply);
			}
			return replies.toArray(new Reply[0]);
		}

	}

	/** A request as the server received it; header names lower case. */
	record Request(String method, String path, Map<String, String> headers, byte[] body) {

		String text() {
			return new String(this.body, StandardCharsets.UTF_8);
		}

	}

}
