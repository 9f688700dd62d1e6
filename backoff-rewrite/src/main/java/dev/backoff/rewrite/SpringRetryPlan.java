package dev.backoff.rewrite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.Statement;
import org.openrewrite.java.tree.TypeUtils;

/**
 * What {@link MigrateSpringRetryCode} does to one class: the {@code @Backoff} for each
 * {@code @Retryable} (the type's and its methods', by the declaration's id), with its
 * {@code fallback} linked to the {@code @Recover} method Spring Retry would call, and whether
 * the class's {@code @Recover} annotations can go. Computed alike when scanning and editing.
 */
final class SpringRetryPlan {

	static final String RECOVER = "org.springframework.retry.annotation.Recover";

	static final String CIRCUIT_BREAKER = "org.springframework.retry.annotation.CircuitBreaker";

	/** Return types whose failure Spring Retry never saw: it came after the method returned. */
	private static final List<String> ASYNC = List.of("java.util.concurrent.CompletionStage",
			"java.util.concurrent.Future", "org.reactivestreams.Publisher");

	/** By the id of the declaration (method or class) that carries the {@code @Retryable}. */
	final Map<UUID, BackoffAnnotation> annotations = new HashMap<>();

	/** The {@code @Recover} annotations go when every {@code @Retryable} of the class migrates. */
	boolean recoversMigrate = true;

	/** The names of the {@code @Recover} methods a migrated annotation names as its fallback. */
	final Set<String> linkedRecovers = new HashSet<>();

	/**
	 * The ids of the {@code @Recover} methods no {@code @Retryable} of the class links (one in a
	 * subclass, say): they keep their annotation and are reported.
	 */
	final Set<UUID> unlinkedRecovers = new HashSet<>();

	/**
	 * The {@code @Recover} methods of superclasses that a migrated method of this class takes as
	 * its fallback, as Spring Retry found them, by {@link #key}.
	 */
	final Set<String> inheritedRecovers = new HashSet<>();

	/** The {@link #key}s of this class's {@code @Recover} methods that no method of it links. */
	final Set<String> unlinkedRecoverKeys = new HashSet<>();

	private SpringRetryPlan() {
	}

	/** @return a {@code @Recover} method's key: its declaring class's name and its own */
	static String key(String declaringType, String method) {
		return declaringType + "#" + method;
	}

	/** The keys ({@link RetryCountReads#key}) of this class's {@code @Retryable} methods that migrate. */
	final Set<String> migratingMethods = new HashSet<>();

	static SpringRetryPlan of(J.ClassDeclaration type) {
		return of(type, Set.of(), Set.of());
	}

	/**
	 * @param linkedBySubclasses the keys of {@code @Recover} methods that a migrated method of a
	 * subclass takes as its fallback: they go as the ones this class links do
	 * @param readBeyondCount the keys of {@code @Retryable} methods that an implementation or
	 * override reads {@code RetrySynchronizationManager} in, beyond the retry count
	 */
	static SpringRetryPlan of(J.ClassDeclaration type, Set<String> linkedBySubclasses, Set<String> readBeyondCount) {
		SpringRetryPlan plan = new SpringRetryPlan();
		String typeName = (type.getType() != null) ? type.getType().getFullyQualifiedName() : type.getSimpleName();
		List<J.MethodDeclaration> methods = new ArrayList<>();
		List<J.MethodDeclaration> recovers = new ArrayList<>();
		for (Statement statement : type.getBody().getStatements()) {
			if (statement instanceof J.MethodDeclaration method) {
				methods.add(method);
				if (find(method.getLeadingAnnotations(), RECOVER) != null) {
					recovers.add(method);
				}
			}
		}
		J.Annotation onType = find(type.getLeadingAnnotations(), SpringRetryMapping.RETRYABLE);
		if (onType != null) {
			BackoffAnnotation ours = SpringRetryMapping.map(onType);
			if (type.getKind() == J.ClassDeclaration.Kind.Type.Annotation) {
				ours.unmigratable("a composed annotation (@Retryable as a meta-annotation, its attributes perhaps "
						+ "aliased): Backoff's @Backoff is no meta-annotation; put @Backoff on the methods that use it");
			}
			for (J.MethodDeclaration method : methods) {
				if (method.hasModifier(J.Modifier.Type.Public)) {
					noteAsync(method, ours);
				}
			}
			if (!recovers.isEmpty()) {
				ours.unmigratable("@Retryable on the type with @Recover methods (Backoff's fallback is per method: "
						+ "move @Backoff(fallback = ...) onto each method)");
			}
			plan.add(type.getId(), ours);
		}
		for (J.MethodDeclaration method : methods) {
			J.Annotation retryable = find(method.getLeadingAnnotations(), SpringRetryMapping.RETRYABLE);
			if (retryable == null) {
				continue;
			}
			BackoffAnnotation ours = SpringRetryMapping.map(retryable);
			noteAsync(method, ours);
			if (RetryCountReads.readsBeyondCount(method)) {
				ours.unmigratable("the method reads RetrySynchronizationManager beyond getContext().getRetryCount() "
						+ "(" + RetryCountReads.BEYOND + ")");
			}
			else if (method.getMethodType() != null
					&& readBeyondCount.contains(RetryCountReads.key(method.getMethodType()))) {
				ours.unmigratable("an implementation or override reads RetrySynchronizationManager beyond "
						+ "getContext().getRetryCount() (" + RetryCountReads.BEYOND + ")");
			}
			String name = new Attributes(retryable).string("recover");
			// A @Recover of this class that fits only another method does not hide a superclass's one that
			// fits this method (linked with a note: see inheritedFallback).
			String inherited = (name == null && recovers.stream().noneMatch((recover) -> recovers(recover, method)))
					? inheritedFallback(type, method, ours) : null;
			String fallback = (inherited != null) ? null : fallback(method, name, recovers, ours);
			plan.add(method.getId(), ours);
			if (ours.isMigratable() && method.getMethodType() != null) {
				plan.migratingMethods.add(RetryCountReads.key(method.getMethodType()));
			}
			if (inherited != null && ours.isMigratable()) {
				plan.inheritedRecovers.add(inherited);
			}
			if (fallback != null && ours.isMigratable()) {
				plan.linkedRecovers.add(fallback);
			}
		}
		for (J.MethodDeclaration recover : recovers) {
			if (linkedBySubclasses.contains(key(typeName, recover.getSimpleName()))) {
				plan.linkedRecovers.add(recover.getSimpleName());
			}
		}
		if (plan.recoversMigrate) {
			for (J.MethodDeclaration recover : recovers) {
				if (!plan.linkedRecovers.contains(recover.getSimpleName())) {
					plan.unlinkedRecovers.add(recover.getId());
					plan.unlinkedRecoverKeys.add(key(typeName, recover.getSimpleName()));
				}
			}
		}
		return plan;
	}

	/**
	 * Spring Retry looks for {@code @Recover} methods in superclasses too: the one of a
	 * superclass that fits the method, by shape, becomes its fallback.
	 * @return the fallback's {@link #key}, or {@code null} when no superclass has one
	 */
	private static @Nullable String inheritedFallback(J.ClassDeclaration type, J.MethodDeclaration method,
			BackoffAnnotation ours) {
		JavaType.Method methodType = method.getMethodType();
		JavaType.FullyQualified superclass = (type.getType() != null) ? type.getType().getSupertype() : null;
		if (type.getExtends() != null && (superclass == null || superclass instanceof JavaType.Unknown)) {
			// Its @Recover methods cannot be read: migrating would drop one that Spring Retry calls.
			String name = (type.getExtends() instanceof Expression written)
					? Attributes.print(written) : "";
			ours.unmigratable("its superclass " + name + " is not on the recipe's "
					+ "class path: a @Recover method there would be its recovery");
			return null;
		}
		Set<String> names = new LinkedHashSet<>();
		String found = null;
		while (methodType != null && superclass != null && !"java.lang.Object".equals(superclass.getFullyQualifiedName())) {
			for (JavaType.Method candidate : superclass.getMethods()) {
				boolean recover = candidate.getAnnotations().stream()
					.anyMatch((annotation) -> TypeUtils.isOfClassType(annotation, RECOVER));
				if (recover && recovers(candidate, methodType) && names.add(candidate.getName())) {
					found = key(superclass.getFullyQualifiedName(), candidate.getName());
				}
			}
			superclass = superclass.getSupertype();
		}
		if (names.size() > 1) {
			ours.unmigratable("inherited @Recover methods of different names " + names + " could answer for it: "
					+ "Backoff's fallback names one");
			return null;
		}
		if (found != null) {
			ours.string("fallback", names.iterator().next());
			ours.note("the fallback " + names.iterator().next() + " is a superclass's @Recover, which Spring Retry 2.0 "
					+ "did not call (it looks among the bean class's own methods: ExhaustedRetryException), "
					+ "Spring Retry 1.3 did, and Backoff does");
		}
		return found;
	}

	/** @return whether the method's {@code @Recover} annotation goes */
	boolean removesRecover(J.MethodDeclaration method) {
		return this.recoversMigrate && this.linkedRecovers.contains(method.getSimpleName());
	}

	private void add(UUID id, BackoffAnnotation ours) {
		this.annotations.put(id, ours);
		if (!ours.isMigratable()) {
			this.recoversMigrate = false;
		}
	}

	/** @return whether a {@code @Retryable} of the class stays (unlinked {@code @Recover} methods aside) */
	boolean leavesRetryable() {
		return this.annotations.values().stream().anyMatch((ours) -> !ours.isMigratable());
	}

	/**
	 * Spring Retry's own matching: the {@code recover} name when given; else a {@code @Recover}
	 * method returning the method's type whose parameters are a failure and then the method's.
	 */
	private static @Nullable String fallback(J.MethodDeclaration method, @Nullable String name,
			List<J.MethodDeclaration> recovers, BackoffAnnotation ours) {
		if (name != null) {
			ours.string("fallback", name);
			return name;
		}
		if (recovers.isEmpty()) {
			return null;
		}
		Set<String> names = new LinkedHashSet<>();
		for (J.MethodDeclaration recover : recovers) {
			if (recovers(recover, method)) {
				names.add(recover.getSimpleName());
			}
		}
		if (names.size() == 1) {
			ours.string("fallback", names.iterator().next());
			for (J.MethodDeclaration recover : recovers) {
				if (recover.getSimpleName().equals(names.iterator().next()) && recover.getMethodType() != null
						&& method.getMethodType() != null && !TypeUtils.isOfType(recover.getMethodType().getReturnType(),
								method.getMethodType().getReturnType())) {
					ours.note("the fallback returns a supertype of the method's type, which Spring Retry allows: "
							+ "Backoff checks at start-up that it returns the method's type");
					break;
				}
			}
			return names.iterator().next();
		}
		if (names.size() > 1) {
			ours.unmigratable("@Recover methods of different names " + names + " could answer for it: "
					+ "Backoff's fallback names one");
		}
		else {
			ours.note("no @Recover method fits it: Spring Retry threw ExhaustedRetryException, "
					+ "Backoff rethrows the last failure");
		}
		return null;
	}

	/** Spring Retry retried a method only when it threw: a failed future or publisher it returned was not. */
	private static void noteAsync(J.MethodDeclaration method, BackoffAnnotation ours) {
		JavaType returned = (method.getMethodType() != null) ? method.getMethodType().getReturnType() : null;
		for (String async : ASYNC) {
			if (returned != null && TypeUtils.isAssignableTo(async, returned)) {
				String name = (TypeUtils.asFullyQualified(returned) != null)
						? TypeUtils.asFullyQualified(returned).getClassName() : async;
				String note = method.getSimpleName() + " returns " + name + ": Spring Retry retried only a "
						+ "synchronous throw, never a failed " + name + ", which Backoff retries too: the call may now "
						+ "run up to maxAttempts times, so check that it is safe to repeat";
				if (!ours.notes().contains(note)) {
					ours.note(note);
				}
				return;
			}
		}
	}

	private static boolean recovers(J.MethodDeclaration recover, J.MethodDeclaration method) {
		JavaType.Method recoverType = recover.getMethodType();
		JavaType.Method methodType = method.getMethodType();
		return recoverType != null && methodType != null && recovers(recoverType, methodType);
	}

	private static boolean recovers(JavaType.Method recoverType, JavaType.Method methodType) {
		if (!TypeUtils.isAssignableTo(recoverType.getReturnType(), methodType.getReturnType())
				&& !TypeUtils.isOfType(recoverType.getReturnType(), methodType.getReturnType())) {
			return false;
		}
		List<JavaType> parameters = recoverType.getParameterTypes();
		if (parameters.isEmpty() || !TypeUtils.isAssignableTo("java.lang.Throwable", parameters.get(0))) {
			return false;
		}
		List<JavaType> arguments = methodType.getParameterTypes();
		if (parameters.size() != arguments.size() + 1) {
			return false;
		}
		for (int i = 0; i < arguments.size(); i++) {
			if (!TypeUtils.isAssignableTo(parameters.get(i + 1), arguments.get(i))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * A composed annotation: one of the project's or a library's, meta-annotated with Spring
	 * Retry's {@code @Retryable} or {@code @CircuitBreaker}, which Spring Retry honours where it is
	 * used and Backoff cannot be (its {@code @Backoff} is no meta-annotation).
	 * @return the first such annotation, or {@code null}
	 */
	static J.@Nullable Annotation composed(List<J.Annotation> annotations) {
		for (J.Annotation annotation : annotations) {
			JavaType.FullyQualified type = TypeUtils.asFullyQualified(annotation.getType());
			if (type != null && !type.getFullyQualifiedName().startsWith("org.springframework.retry.")
					&& type.getAnnotations().stream()
						.anyMatch((meta) -> TypeUtils.isOfClassType(meta, SpringRetryMapping.RETRYABLE)
								|| TypeUtils.isOfClassType(meta, CIRCUIT_BREAKER))) {
				return annotation;
			}
		}
		return null;
	}

	/** @return why a use of a composed annotation is left, on a {@code where} ("method", "type") */
	static String composedUse(J.Annotation composed, String where) {
		JavaType.FullyQualified type = TypeUtils.asFullyQualified(composed.getType());
		boolean breaker = type != null && type.getAnnotations().stream()
			.anyMatch((meta) -> TypeUtils.isOfClassType(meta, CIRCUIT_BREAKER));
		return "@" + composed.getSimpleName() + " is a composed annotation (meta-annotated with Spring Retry's "
				+ (breaker ? "@CircuitBreaker" : "@Retryable") + "): Backoff's @Backoff is no meta-annotation; put "
				+ "@Backoff on this " + where;
	}

	static J.@Nullable Annotation find(List<J.Annotation> annotations, String type) {
		for (J.Annotation annotation : annotations) {
			if (TypeUtils.isOfClassType(annotation.getType(), type)) {
				return annotation;
			}
		}
		return null;
	}

}
