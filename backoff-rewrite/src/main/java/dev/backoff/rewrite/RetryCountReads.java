package dev.backoff.rewrite;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.TypeUtils;

/**
 * Spring Retry's {@code RetrySynchronizationManager} as a method reads it: the one read Backoff
 * has exactly, {@code getContext().getRetryCount()} ({@code CurrentAttempt.number() - 1}),
 * or anything else (the context's attributes, its last failure, {@code setExhaustedOnly}),
 * which keeps the method on Spring Retry. A read counts for the {@code @Retryable} method
 * itself and for the annotated declarations it implements or overrides, wherever they are.
 */
final class RetryCountReads {

	static final String MANAGER = "org.springframework.retry.support.RetrySynchronizationManager";

	static final String CONTEXT = "org.springframework.retry.RetryContext";

	/** What a migrated read becomes: Spring Retry's count starts at 0, our number at 1. */
	static final String REPLACEMENT = "(dev.backoff.CurrentAttempt.number() - 1)";

	/** What a read beyond the count is, as the recipe says it. */
	static final String BEYOND = "the context's attributes, its last failure, or the count in a lambda or an anonymous "
			+ "class, which may run on another thread or after the attempt";

	private RetryCountReads() {
	}

	/** @return whether the invocation is {@code RetrySynchronizationManager.getContext().getRetryCount()} */
	static boolean isCountRead(J.MethodInvocation invocation) {
		return invocation.getSimpleName().equals("getRetryCount") && invocation.getArguments().stream()
			.allMatch((argument) -> argument instanceof J.Empty)
				&& invocation.getSelect() instanceof J.MethodInvocation context
				&& context.getSimpleName().equals("getContext") && isManager(context);
	}

	/**
	 * @return whether the method body uses the manager in any way but {@link #isCountRead count
	 * reads} made in the body itself (one in a lambda or an anonymous class counts as another use)
	 */
	static boolean readsBeyondCount(J.MethodDeclaration method) {
		int[] uses = new int[2];
		new JavaIsoVisitor<int[]>() {
			@Override
			public J.MethodInvocation visitMethodInvocation(J.MethodInvocation invocation, int[] counts) {
				if (isManager(invocation)) {
					counts[0]++;
				}
				// In a lambda or an anonymous class the read may run on another thread or after the attempt,
				// where neither library has an attempt: no rewriting is exact.
				boolean deferred = getCursor().firstEnclosing(J.Lambda.class) != null
						|| getCursor().firstEnclosing(J.MethodDeclaration.class) != null;
				if (isCountRead(invocation) && !deferred) {
					counts[1]++;
				}
				return super.visitMethodInvocation(invocation, counts);
			}
		}.visit(method.getBody(), uses);
		return uses[0] > uses[1];
	}

	/** @return whether the method body reads the count exactly at least once */
	static boolean readsCount(J.MethodDeclaration method) {
		boolean[] found = new boolean[1];
		new JavaIsoVisitor<boolean[]>() {
			@Override
			public J.MethodInvocation visitMethodInvocation(J.MethodInvocation invocation, boolean[] reads) {
				reads[0] |= isCountRead(invocation);
				return super.visitMethodInvocation(invocation, reads);
			}
		}.visit(method.getBody(), found);
		return found[0];
	}

	/**
	 * @return whether every use of the manager in the file is a count read inside a method that
	 * answers for a {@code @Retryable} declaration, so that its types leave with the migration
	 */
	static boolean onlyCountReadsOfRetryables(J.CompilationUnit unit) {
		boolean[] other = new boolean[1];
		new JavaIsoVisitor<boolean[]>() {
			@Override
			public J.MethodDeclaration visitMethodDeclaration(J.MethodDeclaration method, boolean[] found) {
				if (readsBeyondCount(method) || (readsCount(method) && retryableKeys(method).isEmpty())) {
					found[0] = true;
				}
				return super.visitMethodDeclaration(method, found);
			}
		}.visit(unit, other);
		return !other[0];
	}

	private static boolean isManager(J.MethodInvocation invocation) {
		return invocation.getMethodType() != null
				&& TypeUtils.isOfClassType(invocation.getMethodType().getDeclaringType(), MANAGER);
	}

	/** @return a method's key: its declaring type, name and parameter types */
	static String key(JavaType.Method method) {
		return method.getDeclaringType().getFullyQualifiedName() + "#" + method.getName() + "("
				+ method.getParameterTypes().stream().map(RetryCountReads::erased).collect(Collectors.joining(",")) + ")";
	}

	/**
	 * @return the keys of the {@code @Retryable} declarations the method answers for: its own,
	 * and those of the supertypes' methods it implements or overrides
	 */
	static List<String> retryableKeys(J.MethodDeclaration method) {
		List<String> keys = new ArrayList<>();
		JavaType.Method type = method.getMethodType();
		if (type == null) {
			return keys;
		}
		if (SpringRetryPlan.find(method.getLeadingAnnotations(), SpringRetryMapping.RETRYABLE) != null) {
			keys.add(key(type));
		}
		addOverridden(type, type.getDeclaringType(), keys, new HashSet<>());
		return keys;
	}

	private static void addOverridden(JavaType.Method method, JavaType.@Nullable FullyQualified owner, List<String> keys,
			Set<String> seen) {
		if (owner == null || !seen.add(owner.getFullyQualifiedName())) {
			return;
		}
		List<JavaType.FullyQualified> supertypes = new ArrayList<>(owner.getInterfaces());
		if (owner.getSupertype() != null) {
			supertypes.add(owner.getSupertype());
		}
		for (JavaType.FullyQualified supertype : supertypes) {
			for (JavaType.Method candidate : supertype.getMethods()) {
				if (candidate.getName().equals(method.getName()) && sameParameters(candidate, method)
						&& candidate.getAnnotations().stream()
							.anyMatch((annotation) -> TypeUtils.isOfClassType(annotation, SpringRetryMapping.RETRYABLE))) {
					keys.add(key(candidate));
				}
			}
			addOverridden(method, supertype, keys, seen);
		}
	}

	private static boolean sameParameters(JavaType.Method one, JavaType.Method other) {
		List<JavaType> these = one.getParameterTypes();
		List<JavaType> those = other.getParameterTypes();
		if (these.size() != those.size()) {
			return false;
		}
		for (int i = 0; i < these.size(); i++) {
			if (!erased(these.get(i)).equals(erased(those.get(i)))) {
				return false;
			}
		}
		return true;
	}

	private static String erased(JavaType type) {
		JavaType.FullyQualified named = TypeUtils.asFullyQualified(type);
		return (named != null) ? named.getFullyQualifiedName() : String.valueOf(type);
	}

}
