package dev.backoff.sample.quotes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import dev.backoff.sample.SampleProperties;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What happens to the request of a hedged read that lost: {@link QuoteReads} returns the JDK
 * client's future (through {@code thenApply}), and cancelling it, as a hedged call cancels a
 * losing copy ({@code cancel(true)}), aborts the exchange: the server sees the connection closed,
 * rather than keep it busy until it answers. A loopback server that reads the request and never
 * answers; each read has a deadline, and nothing sleeps.
 */
class QuoteReadsCancellationTests {

	@Test
	void cancellingAReadClosesItsConnection() throws IOException {
		try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			server.setSoTimeout(5000);
			SampleProperties properties = new SampleProperties();
			properties.getDownstream().setBaseUrl("http://127.0.0.1:" + server.getLocalPort());
			QuoteReads reads = new QuoteReads(new DownstreamBaseUrl(properties), JsonMapper.shared());
			CompletableFuture<Quote> read = reads.fetch("ACME");
			try (Socket socket = server.accept()) {
				// Without the abort, the read below would wait out this deadline and fail.
				socket.setSoTimeout(5000);
				InputStream in = socket.getInputStream();
				assertThat(requestHead(in)).startsWith("GET /downstream/quotes/ACME HTTP/1.1\r\n");
				assertThat(read.cancel(true)).isTrue();
				assertThat(in.read()).as("the end of the stream: the client closed the connection").isEqualTo(-1);
			}
		}
	}

	private static String requestHead(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
			int next = in.read();
			if (next < 0) {
				break;
			}
			head.write(next);
		}
		return head.toString(StandardCharsets.ISO_8859_1);
	}

}
