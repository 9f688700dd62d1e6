package dev.backoff.spring.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A raw HTTP/1.1 server on loopback for uploads whose first attempt fails: on the first
 * connection it reads the request head and {@link #RESET_AFTER} bytes of body, then resets the
 * connection ({@link First#RESET}), or reads the request whole and answers 503
 * ({@link First#UNAVAILABLE}); on every later one it reads the request by its framing (chunked
 * or Content-Length), records exactly the body bytes it received and whether the request was
 * complete, and answers 200 only to a complete one. One connection at a time, each closed after
 * one exchange; a test waits for each connection's record, never for time to pass.
 */
final class UploadServer implements AutoCloseable {

	static final int RESET_AFTER = 16 * 1024;

	/** Only a safety net: a client that neither finishes nor aborts a request fails the test. */
	private static final int READ_TIMEOUT_MILLIS = 20_000;

	private final ServerSocket socket;

	private final First first;

	private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

	UploadServer(First first) throws IOException {
		this.first = first;
		this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::serve, "upload-server");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	String url() {
		return "http://127.0.0.1:" + this.socket.getLocalPort();
	}

	/**
	 * Waits for the connections the server has handled so far, in order.
	 * @param count how many connections the test expects
	 * @return their records, once the server is done with each
	 */
	List<Received> received(int count) throws InterruptedException {
		List<Received> all = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Received next = this.received.poll(READ_TIMEOUT_MILLIS * 2L, TimeUnit.MILLISECONDS);
			if (next == null) {
				throw new AssertionError("The server handled " + all + " but no connection " + (i + 1));
			}
			all.add(next);
		}
		return all;
	}

	private void serve() {
		for (int connection = 1; !this.socket.isClosed(); connection++) {
			try (Socket client = this.socket.accept()) {
				client.setSoTimeout(READ_TIMEOUT_MILLIS);
				this.received.add(exchange(connection, client));
			}
			catch (IOException ex) {
				// The server closed, or the client went away before a request: nothing to record.
			}
		}
	}

	private Received exchange(int connection, Socket client) throws IOException {
		InputStream in = new BufferedInputStream(client.getInputStream());
		Map<String, String> headers = new LinkedHashMap<>();
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		try {
			String requestLine = LoopbackServer.line(in);
			for (String header = LoopbackServer.line(in); !header.isEmpty(); header = LoopbackServer.line(in)) {
				int colon = header.indexOf(':');
				headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
						header.substring(colon + 1).trim());
			}
			headers.put(":request", requestLine);
		}
		catch (IOException ex) {
			return new Received(connection, headers, new byte[0], false, "no request head: " + ex.getMessage());
		}
		if (connection == 1 && this.first == First.RESET) {
			body.write(in.readNBytes(RESET_AFTER));
			// SO_LINGER 0: close sends a RST, the client reads "connection reset" mid-body.
			client.setSoLinger(true, 0);
			return new Received(connection, headers, body.toByteArray(), false, "reset by the server");
		}
		try {
			readBody(in, headers, body);
		}
		catch (IOException ex) {
			return new Received(connection, headers, body.toByteArray(), false, ex.toString());
		}
		int status = (connection == 1) ? 503 : 200;
		OutputStream out = client.getOutputStream();
		out.write(("HTTP/1.1 " + status + " Status\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			.getBytes(StandardCharsets.ISO_8859_1));
		out.flush();
		return new Received(connection, headers, body.toByteArray(), true, "answered " + status);
	}

	/** Reads the body as its framing says: it returns only once the request is complete. */
	private static void readBody(InputStream in, Map<String, String> headers, ByteArrayOutputStream body)
			throws IOException {
		if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
			for (int size = chunkSize(LoopbackServer.line(in)); size > 0; size = chunkSize(LoopbackServer.line(in))) {
				copy(in, size, body);
				if (!LoopbackServer.line(in).isEmpty()) {
					throw new IOException("a chunk of " + size + " bytes was not followed by CRLF");
				}
			}
			// After the terminating chunk: trailers, if any, up to the empty line.
			String trailer;
			do {
				trailer = LoopbackServer.line(in);
			}
			while (!trailer.isEmpty());
		}
		else {
			copy(in, Long.parseLong(headers.getOrDefault("content-length", "0")), body);
		}
	}

	private static int chunkSize(String line) {
		int extension = line.indexOf(';');
		return Integer.parseInt(((extension >= 0) ? line.substring(0, extension) : line).trim(), 16);
	}

	/** Copies {@code length} bytes, keeping those that came when the stream ends before. */
	private static void copy(InputStream in, long length, ByteArrayOutputStream body) throws IOException {
		byte[] buffer = new byte[64 * 1024];
		for (long left = length; left > 0;) {
			int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
			if (read < 0) {
				throw new IOException("the connection ended " + left + " bytes before the end of the body");
			}
			body.write(buffer, 0, read);
			left -= read;
		}
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

	/** What the server does with the first connection. */
	enum First {

		/** Reads the head and {@link #RESET_AFTER} bytes of body, then resets the connection. */
		RESET,

		/** Reads the request whole and answers 503. */
		UNAVAILABLE

	}

	/**
	 * One connection as the server saw it.
	 * @param connection its number, from 1
	 * @param headers the request's headers, names lower case, and {@code :request} its request line
	 * @param body the body bytes received (chunked framing removed)
	 * @param complete whether the whole request arrived: the terminating chunk, or all Content-Length bytes
	 * @param outcome how the exchange ended, for failure messages
	 */
	record Received(int connection, Map<String, String> headers, byte[] body, boolean complete, String outcome) {

		boolean chunked() {
			return "chunked".equalsIgnoreCase(this.headers.get("transfer-encoding"));
		}

		@Override
		public String toString() {
			return "connection " + this.connection + " (" + this.headers.get(":request") + ", "
					+ (chunked() ? "chunked" : "content-length " + this.headers.get("content-length")) + "): "
					+ this.body.length + " body bytes, " + (this.complete ? "complete" : "incomplete") + ", "
					+ this.outcome;
		}

	}

}
