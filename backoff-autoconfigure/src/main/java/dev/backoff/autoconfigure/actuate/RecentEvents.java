package dev.backoff.autoconfigure.actuate;

import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.backoff.spring.events.BackoffEvent;
import dev.backoff.spring.events.BackoffEvent.Kind;
import dev.backoff.spring.events.BackoffEvents;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code backoff} endpoint's answer to {@code GET /actuator/backoff/{policy}/events}: the
 * policy's recent events ({@link BackoffEvents}), newest first, each with only the fields of
 * its kind.
 */
final class RecentEvents {

	/** The path segment after a policy's name. */
	static final String SEGMENT = "events";

	private static final String KINDS = Stream.of(Kind.values()).map(Kind::value).collect(Collectors.joining(", "));

	private RecentEvents() {
	}

	/**
	 * @param policy a configured policy
	 * @param events the recorded events, or {@code null} when none are recorded
	 * @param method only this method's events ({@code SimpleClassName.methodName}), or {@code null}
	 * @param kind only events of this kind ({@code retry-scheduled}…), or {@code null}
	 * @return 200 with the events; 400 naming the kinds when {@code kind} is none of them
	 */
	static WebEndpointResponse<OperationResponseBody> answer(String policy, @Nullable BackoffEvents events,
			@Nullable String method, @Nullable String kind) {
		Kind only = null;
		if (kind != null) {
			only = Kind.of(kind);
			if (only == null) {
				return new WebEndpointResponse<>(new UnknownKindDescriptor(policy, kind,
						"No kind of event is named '" + kind + "'; the kinds are " + KINDS),
						WebEndpointResponse.STATUS_BAD_REQUEST);
			}
		}
		List<Map<String, Object>> shown = new ArrayList<>();
		if (events != null) {
			for (BackoffEvent event : events.get(policy)) {
				if ((only == null || event.kind() == only) && (method == null || method.equals(event.method()))) {
					shown.add(describe(event));
				}
			}
		}
		return new WebEndpointResponse<>(new EventsDescriptor(policy, (events != null) ? events.getBufferSize() : 0,
				shown));
	}

	/**
	 * @param policy the policy named
	 * @param segment what followed its name, not {@value #SEGMENT}
	 * @return 404, naming the one path there is
	 */
	static WebEndpointResponse<OperationResponseBody> noSuchPath(String policy, String segment) {
		return new WebEndpointResponse<>(new NoSuchPathDescriptor(policy, "No '" + segment + "' under the policy '"
				+ policy + "': /actuator/backoff/" + policy + "/" + SEGMENT + " shows its recent events"),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	static Map<String, Object> describe(BackoffEvent event) {
		Map<String, Object> fields = new LinkedHashMap<>();
		fields.put("time", event.time().truncatedTo(ChronoUnit.MILLIS).toString());
		fields.put("kind", event.kind().value());
		if (event.method() != null) {
			fields.put("method", event.method());
		}
		switch (event.kind()) {
			case RETRY_SCHEDULED -> {
				fields.put("attempt", event.attempt());
				fields.put("delay", BackoffEndpoint.rounded(event.delay()));
				fields.put("retryAfter", event.retryAfter());
			}
			case CALL_ENDED, BUDGET_REFUSED -> {
				fields.put("outcome", event.outcome().tagValue());
				fields.put("attempts", event.attempt());
			}
			case HEDGE_SENT, HEDGE_WON -> fields.put("attempt", event.attempt());
			case POLICY_CHANGED -> fields.put("changes", event.changes());
		}
		if (event.failure() != null) {
			fields.put("failure", event.failure());
		}
		if (event.message() != null) {
			fields.put("message", event.message());
		}
		return fields;
	}

	/**
	 * A policy's recent events, newest first, as many as {@code bufferSize} keeps
	 * ({@code backoff.events.buffer-size}, 0 when none are kept).
	 */
	public record EventsDescriptor(String policy, int bufferSize, List<Map<String, Object>> events)
			implements OperationResponseBody {
	}

	/** The answer to a {@code kind} that names no kind of event: the message names them. */
	public record UnknownKindDescriptor(String policy, String kind, String message) implements OperationResponseBody {
	}

	/** The answer to a path under a policy that is not {@value #SEGMENT}. */
	public record NoSuchPathDescriptor(String policy, String message) implements OperationResponseBody {
	}

}
