package dev.backoff.spring.http;

import java.lang.StackWalker.StackFrame;

/**
 * Names the code that asked {@link BackoffHttp} or {@link ReactiveBackoffHttp} for a client's
 * retries, for the message that refuses it: the first frame outside those two, read only when
 * refusing (a client is built once, so walking the stack then costs nothing that matters).
 */
final class CallSite {

	private static final String PACKAGE = CallSite.class.getPackageName() + ".";

	/** By name: a class literal of ReactiveBackoffHttp would load WebFlux types where they may be absent. */
	private static final String[] OWN = { PACKAGE + "BackoffHttp", PACKAGE + "ReactiveBackoffHttp",
			CallSite.class.getName() };

	private CallSite() {
	}

	/**
	 * @param call the call as the user wrote it, such as {@code ReactiveBackoffHttp.filter("customer")}
	 * @return the call and the method that made it, such as
	 * {@code ReactiveBackoffHttp.filter("customer") in GatewayConfig.customersClient (GatewayConfig.java:42)}
	 */
	static String describe(String call) {
		String caller = StackWalker.getInstance()
			.walk((frames) -> frames.filter((frame) -> !isOwn(frame.getClassName())).findFirst())
			.map(CallSite::name)
			.orElse(null);
		return (caller != null) ? call + " in " + caller : call;
	}

	private static boolean isOwn(String className) {
		for (String own : OWN) {
			if (className.equals(own) || className.startsWith(own + "$")) {
				return true;
			}
		}
		return false;
	}

	private static String name(StackFrame frame) {
		String className = frame.getClassName();
		String simple = className.substring(className.lastIndexOf('.') + 1);
		String file = frame.getFileName();
		return simple + "." + frame.getMethodName()
				+ ((file != null) ? " (" + file + ":" + frame.getLineNumber() + ")" : "");
	}

}
