package dev.backoff.autoconfigure;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.backoff.BackoffTask;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ReflectiveMethodInvocation;

/**
 * The attempts of one call behind a Spring AOP proxy. The first attempt proceeds on the
 * invocation itself, so a call that succeeds at once pays for no clone; each retry proceeds
 * on a fresh {@link ProxyMethodInvocation#invocableClone() clone}, never twice on one
 * invocation, so that the advice inside ours (a transaction, say) runs again every time.
 *
 * <p>A clone taken after {@code proceed()} would start past the inner advice, because the
 * invocation's interceptor index has moved on. So the index is read before the first attempt
 * and put back into a template clone from which every retry is cloned. Where that index
 * cannot be read (another {@code ProxyMethodInvocation}, or a runtime that refuses the
 * access), every attempt, the first included, proceeds on a clone instead, as Spring
 * Framework's own {@code @Retryable} does.
 */
final class ProxyAttempts implements BackoffTask<@Nullable Object> {

	private static final int UNKNOWN = Integer.MIN_VALUE;

	private static final @Nullable VarHandle INTERCEPTOR_INDEX = interceptorIndex();

	private final ProxyMethodInvocation invocation;

	private final int index;

	private boolean started;

	private @Nullable ProxyMethodInvocation template;

	ProxyAttempts(ProxyMethodInvocation invocation) {
		this.invocation = invocation;
		VarHandle interceptorIndex = INTERCEPTOR_INDEX;
		this.index = (interceptorIndex != null && invocation instanceof ReflectiveMethodInvocation)
				? (int) interceptorIndex.get(invocation) : UNKNOWN;
	}

	@Override
	public @Nullable Object run() throws Throwable {
		if (this.index == UNKNOWN) {
			return this.invocation.invocableClone().proceed();
		}
		if (!this.started) {
			this.started = true;
			return this.invocation.proceed();
		}
		ProxyMethodInvocation template = this.template;
		if (template == null) {
			template = (ProxyMethodInvocation) this.invocation.invocableClone();
			INTERCEPTOR_INDEX.set(template, this.index);
			this.template = template;
		}
		return template.invocableClone().proceed();
	}

	private static @Nullable VarHandle interceptorIndex() {
		try {
			return MethodHandles.privateLookupIn(ReflectiveMethodInvocation.class, MethodHandles.lookup())
				.findVarHandle(ReflectiveMethodInvocation.class, "currentInterceptorIndex", int.class);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return null;
		}
	}

}
