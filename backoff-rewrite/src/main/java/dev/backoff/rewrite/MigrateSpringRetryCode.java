package dev.backoff.rewrite;

import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.ScanningRecipe;
import org.openrewrite.SourceFile;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.internal.ListUtils;
import org.openrewrite.java.AnnotationMatcher;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.JavaParser;
import org.openrewrite.java.JavaTemplate;
import org.openrewrite.java.RemoveAnnotationVisitor;
import org.openrewrite.java.ShortenFullyQualifiedTypeReferences;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.Space;
import org.openrewrite.java.tree.TypeUtils;
import org.openrewrite.maven.RemoveDependency;
import org.openrewrite.xml.tree.Xml;

/**
 * The Java half of {@code dev.backoff.rewrite.MigrateSpringRetry}: Spring Retry's
 * {@code @Retryable} becomes Backoff's {@code @Backoff} (see {@link SpringRetryMapping}), its
 * {@code @Recover} method the {@code fallback}, {@code @EnableRetry} becomes
 * {@code @EnableBackoff}; what cannot migrate is left whole with a comment and a row in the
 * {@link MigrationReport}, and {@code org.springframework.retry:spring-retry} leaves the Maven
 * build only when no Spring Retry code is left in the project.
 */
public class MigrateSpringRetryCode extends ScanningRecipe<MigrateSpringRetryCode.Accumulator> {

	static final String ENABLE_RETRY = "org.springframework.retry.annotation.EnableRetry";

	static final String ENABLE_BACKOFF = "dev.backoff.spring.EnableBackoff";

	private static final String SPRING_RETRY_PACKAGE = "org.springframework.retry.";

	private static final String REPORTED_POMS = MigrateSpringRetryCode.class.getName() + ".reportedPoms";

	private final transient MigrationReport report = new MigrationReport(this);

	@Override
	public String getDisplayName() {
		return "Migrate Spring Retry's annotations to Backoff";
	}

	@Override
	public String getDescription() {
		return "Spring Retry's `@Retryable`, `@Recover` and `@EnableRetry` to Backoff's `@Backoff` (with `fallback`) and "
				+ "`@EnableBackoff`, keeping the retry schedule; what cannot migrate is left whole and reported.";
	}

	/** Whether any Spring Retry code stays after the migration, anywhere in the project. */
	public static class Accumulator {

		boolean retryableLeft;

		/** The {@code @Recover} methods no method of their own class links, by {@link SpringRetryPlan#key}. */
		final Set<String> unlinkedRecovers = new HashSet<>();

		/** Those a migrated method of a subclass takes as its fallback. */
		final Set<String> inheritedRecovers = new HashSet<>();

		/** The {@code @Retryable} methods that migrate, by {@link RetryCountReads#key}, as their own class sees them. */
		final Set<String> migratingMethods = new HashSet<>();

		/** Those that an implementation or override reads {@code RetrySynchronizationManager} in, beyond the count. */
		final Set<String> readBeyondCount = new HashSet<>();

		boolean springRetryLeft() {
			return this.retryableLeft || !this.inheritedRecovers.containsAll(this.unlinkedRecovers)
					|| !this.readBeyondCount.isEmpty();
		}

		/** Whether a method's count reads become {@code CurrentAttempt}'s: every declaration it answers for migrates. */
		boolean migratesCountReads(J.MethodDeclaration method) {
			List<String> keys = RetryCountReads.retryableKeys(method);
			return !keys.isEmpty() && this.migratingMethods.containsAll(keys)
					&& keys.stream().noneMatch(this.readBeyondCount::contains);
		}

	}

	@Override
	public Accumulator getInitialValue(ExecutionContext ctx) {
		return new Accumulator();
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getScanner(Accumulator acc) {
		return new JavaIsoVisitor<>() {

			@Override
			public J.CompilationUnit visitCompilationUnit(J.CompilationUnit unit, ExecutionContext ctx) {
				if (!otherSpringRetryTypes(unit).isEmpty()) {
					acc.retryableLeft = true;
				}
				return super.visitCompilationUnit(unit, ctx);
			}

			@Override
			public J.ClassDeclaration visitClassDeclaration(J.ClassDeclaration type, ExecutionContext ctx) {
				SpringRetryPlan plan = SpringRetryPlan.of(type);
				if (plan.leavesRetryable() || hasCircuitBreaker(type) || usesComposed(type)) {
					acc.retryableLeft = true;
				}
				acc.unlinkedRecovers.addAll(plan.unlinkedRecoverKeys);
				acc.inheritedRecovers.addAll(plan.inheritedRecovers);
				acc.migratingMethods.addAll(plan.migratingMethods);
				return super.visitClassDeclaration(type, ctx);
			}

			@Override
			public J.MethodDeclaration visitMethodDeclaration(J.MethodDeclaration method, ExecutionContext ctx) {
				if (RetryCountReads.readsBeyondCount(method)) {
					acc.readBeyondCount.addAll(RetryCountReads.retryableKeys(method));
				}
				return super.visitMethodDeclaration(method, ctx);
			}

		};
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor(Accumulator acc) {
		JavaIsoVisitor<ExecutionContext> java = new JavaVisitor(acc);
		TreeVisitor<?, ExecutionContext> maven = new RemoveDependency("org.springframework.retry", "spring-retry", null)
			.getVisitor();
		return new TreeVisitor<Tree, ExecutionContext>() {

			@Override
			public @Nullable Tree visit(@Nullable Tree tree, ExecutionContext ctx) {
				if (tree instanceof J.CompilationUnit) {
					// The count reads first, while the methods still carry @Retryable.
					return java.visit(new CountReads(acc).visit(tree, ctx), ctx);
				}
				if (tree instanceof Xml.Document document && document.getSourcePath().endsWith("pom.xml")) {
					if (!acc.springRetryLeft()) {
						return maven.visit(tree, ctx);
					}
					// One row per pom, however many cycles the run takes.
					Set<String> reported = ctx.computeMessageIfAbsent(REPORTED_POMS, (key) -> new HashSet<>());
					if (hasSpringRetry(document) && reported.add(document.getSourcePath().toString())) {
						MigrateSpringRetryCode.this.report.insertRow(ctx,
								new MigrationReport.Row(document.getSourcePath().toString(),
										"org.springframework.retry:spring-retry", MigrationReport.HAND_MIGRATION,
										"spring-retry kept: Spring Retry code is left (see the other rows)"));
					}
				}
				return tree;
			}

		};
	}

	private static boolean hasSpringRetry(Xml.Document document) {
		return document.printAll().contains("<artifactId>spring-retry</artifactId>");
	}

	private static boolean usesComposed(J.ClassDeclaration type) {
		return SpringRetryPlan.composed(type.getLeadingAnnotations()) != null || type.getBody().getStatements().stream()
			.anyMatch((statement) -> statement instanceof J.MethodDeclaration method
					&& SpringRetryPlan.composed(method.getLeadingAnnotations()) != null);
	}

	private static boolean hasCircuitBreaker(J.ClassDeclaration type) {
		return type.getBody().getStatements().stream()
			.anyMatch((statement) -> statement instanceof J.MethodDeclaration method
					&& SpringRetryPlan.find(method.getLeadingAnnotations(), SpringRetryPlan.CIRCUIT_BREAKER) != null)
				|| SpringRetryPlan.find(type.getLeadingAnnotations(), SpringRetryPlan.CIRCUIT_BREAKER) != null;
	}

	/** @return the Spring Retry types the file uses beyond its annotations (RetryTemplate, listeners, …) */
	static Set<String> otherSpringRetryTypes(J.CompilationUnit unit) {
		Set<String> types = new TreeSet<>();
		boolean countReadsMigrate = RetryCountReads.onlyCountReadsOfRetryables(unit);
		for (JavaType type : unit.getTypesInUse().getTypesInUse()) {
			if (type instanceof JavaType.FullyQualified named) {
				String name = named.getFullyQualifiedName();
				boolean countRead = name.equals(RetryCountReads.MANAGER) || name.equals(RetryCountReads.CONTEXT);
				if (name.startsWith(SPRING_RETRY_PACKAGE) && !name.startsWith(SPRING_RETRY_PACKAGE + "annotation.")
						&& !(countRead && countReadsMigrate)) {
					types.add(named.getClassName());
				}
			}
		}
		return types;
	}

	/** {@code RetrySynchronizationManager.getContext().getRetryCount()} as {@code CurrentAttempt}'s, where the method migrates. */
	private static final class CountReads extends org.openrewrite.java.JavaVisitor<ExecutionContext> {

		private final Accumulator acc;

		CountReads(Accumulator acc) {
			this.acc = acc;
		}

		@Override
		public J visitMethodInvocation(J.MethodInvocation invocation, ExecutionContext ctx) {
			J.MethodDeclaration method = getCursor().firstEnclosing(J.MethodDeclaration.class);
			if (!RetryCountReads.isCountRead(invocation) || method == null || !this.acc.migratesCountReads(method)) {
				return super.visitMethodInvocation(invocation, ctx);
			}
			maybeRemoveImport(RetryCountReads.MANAGER);
			J read = JavaTemplate.builder(RetryCountReads.REPLACEMENT)
				.javaParser(JavaParser.fromJavaVersion().dependsOn(Stubs.CURRENT_ATTEMPT))
				.build()
				.apply(getCursor(), invocation.getCoordinates().replace());
			doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(read));
			return read;
		}

	}

	private final class JavaVisitor extends JavaIsoVisitor<ExecutionContext> {

		private final Accumulator acc;

		private final Map<UUID, BackoffAnnotation> annotations = new HashMap<>();

		private final Map<UUID, SpringRetryPlan> plans = new HashMap<>();

		JavaVisitor(Accumulator acc) {
			this.acc = acc;
		}

		@Override
		public J.CompilationUnit visitCompilationUnit(J.CompilationUnit unit, ExecutionContext ctx) {
			J.CompilationUnit visited = super.visitCompilationUnit(unit, ctx);
			Set<String> others = otherSpringRetryTypes(unit);
			if (!others.isEmpty() && !visited.getClasses().isEmpty()) {
				J.ClassDeclaration first = visited.getClasses().get(0);
				if (!Comments.has(first.getPrefix())) {
					String reason = "uses " + String.join(", ", others) + ": migrate to BackoffExecutor by hand";
					J.ClassDeclaration marked = first.withPrefix(Comments.add(first.getPrefix(), left(reason)));
					visited = visited.withClasses(ListUtils.mapFirst(visited.getClasses(), (c) -> marked));
					row(ctx, unit, first.getSimpleName(), MigrationReport.HAND_MIGRATION, reason);
				}
			}
			return visited;
		}

		@Override
		public J.ClassDeclaration visitClassDeclaration(J.ClassDeclaration type, ExecutionContext ctx) {
			SpringRetryPlan plan = SpringRetryPlan.of(type, this.acc.inheritedRecovers, this.acc.readBeyondCount);
			this.annotations.putAll(plan.annotations);
			this.plans.put(type.getId(), plan);
			J.ClassDeclaration visited = super.visitClassDeclaration(type, ctx);
			BackoffAnnotation ours = plan.annotations.get(type.getId());
			if (ours != null) {
				visited = visited.withPrefix(comment(visited.getPrefix(), ours, ctx, type.getSimpleName()));
			}
			if (this.acc.springRetryLeft() && SpringRetryPlan.find(visited.getLeadingAnnotations(), ENABLE_RETRY) != null
					&& SpringRetryPlan.find(visited.getLeadingAnnotations(), ENABLE_BACKOFF) == null) {
				visited = JavaTemplate.builder("@" + ENABLE_BACKOFF)
					.javaParser(JavaParser.fromJavaVersion().dependsOn(Stubs.ENABLE_BACKOFF))
					.build()
					.apply(updateCursor(visited), visited.getCoordinates()
						.addAnnotation(Comparator.comparing(J.Annotation::getSimpleName)));
				J.Annotation added = SpringRetryPlan.find(visited.getLeadingAnnotations(), ENABLE_BACKOFF);
				if (added != null) {
					doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(added));
				}
				row(ctx, null, type.getSimpleName(), MigrationReport.HAND_MIGRATION,
						"@EnableRetry kept beside @EnableBackoff for the Spring Retry code left");
			}
			J.Annotation breaker = SpringRetryPlan.find(visited.getLeadingAnnotations(), SpringRetryPlan.CIRCUIT_BREAKER);
			if (breaker != null && !Comments.has(visited.getPrefix())) {
				visited = visited.withPrefix(Comments.add(visited.getPrefix(), left("@CircuitBreaker")));
				row(ctx, null, type.getSimpleName(), MigrationReport.HAND_MIGRATION, "@CircuitBreaker");
			}
			J.Annotation composed = SpringRetryPlan.composed(visited.getLeadingAnnotations());
			if (composed != null && !Comments.has(visited.getPrefix())) {
				String reason = SpringRetryPlan.composedUse(composed, "type");
				visited = visited.withPrefix(Comments.add(visited.getPrefix(), left(reason)));
				row(ctx, null, type.getSimpleName(), MigrationReport.HAND_MIGRATION, reason);
			}
			return visited;
		}

		@Override
		public J.MethodDeclaration visitMethodDeclaration(J.MethodDeclaration method, ExecutionContext ctx) {
			J.MethodDeclaration visited = super.visitMethodDeclaration(method, ctx);
			J.ClassDeclaration type = getCursor().firstEnclosing(J.ClassDeclaration.class);
			String element = ((type != null) ? type.getSimpleName() : "") + "#" + method.getSimpleName();
			BackoffAnnotation ours = this.annotations.get(method.getId());
			if (ours != null) {
				visited = visited.withPrefix(comment(visited.getPrefix(), ours, ctx, element));
			}
			if (SpringRetryPlan.find(visited.getLeadingAnnotations(), SpringRetryPlan.CIRCUIT_BREAKER) != null
					&& !Comments.has(visited.getPrefix())) {
				visited = visited.withPrefix(Comments.add(visited.getPrefix(), left("@CircuitBreaker")));
				row(ctx, null, element, MigrationReport.HAND_MIGRATION, "@CircuitBreaker");
			}
			J.Annotation composed = SpringRetryPlan.composed(visited.getLeadingAnnotations());
			if (composed != null && !Comments.has(visited.getPrefix())) {
				String reason = SpringRetryPlan.composedUse(composed, "method");
				visited = visited.withPrefix(Comments.add(visited.getPrefix(), left(reason)));
				row(ctx, null, element, MigrationReport.HAND_MIGRATION, reason);
			}
			SpringRetryPlan plan = (type != null) ? this.plans.get(type.getId()) : null;
			if (plan != null && SpringRetryPlan.find(visited.getLeadingAnnotations(), SpringRetryPlan.RECOVER) != null) {
				if (plan.removesRecover(method)) {
					visited = (J.MethodDeclaration) new RemoveAnnotationVisitor(
							new AnnotationMatcher("@" + SpringRetryPlan.RECOVER))
						.visitNonNull(visited, ctx, getCursor().getParentOrThrow());
					maybeRemoveImport(SpringRetryPlan.RECOVER);
				}
				else if (plan.unlinkedRecovers.contains(method.getId()) && !Comments.has(visited.getPrefix())) {
					String reason = "@Recover for no @Retryable of this class (one in a subclass?): name it as "
							+ "that method's @Backoff fallback by hand";
					visited = visited.withPrefix(Comments.add(visited.getPrefix(), left(reason)));
					row(ctx, null, element, MigrationReport.HAND_MIGRATION, reason);
				}
			}
			return visited;
		}

		@Override
		public J.Annotation visitAnnotation(J.Annotation annotation, ExecutionContext ctx) {
			Object owner = getCursor().getParentTreeCursor().getValue();
			if (isOf(annotation, SpringRetryMapping.RETRYABLE) && owner instanceof J id) {
				BackoffAnnotation ours = this.annotations.get(id.getId());
				if (ours != null && ours.isMigratable()) {
					// The imports go first, so that our Backoff no longer clashes with Spring Retry's when shortened.
					maybeRemoveImport(SpringRetryMapping.RETRYABLE);
					maybeRemoveImport("org.springframework.retry.annotation.Backoff");
					return replace(annotation, ours.source());
				}
				return annotation;
			}
			if (isOf(annotation, ENABLE_RETRY)) {
				if (this.acc.springRetryLeft()) {
					// Kept for what stays on Spring Retry; @EnableBackoff is added to the type beside it.
					return annotation;
				}
				maybeRemoveImport(ENABLE_RETRY);
				return replace(annotation, "@" + ENABLE_BACKOFF);
			}
			return super.visitAnnotation(annotation, ctx);
		}

		private J.Annotation replace(J.Annotation annotation, String source) {
			J.Annotation replaced = Templates.replace(source, annotation, getCursor().getParentOrThrow());
			doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(replaced));
			return replaced;
		}

		private Space comment(Space prefix, BackoffAnnotation ours,
				ExecutionContext ctx, String element) {
			if (Comments.has(prefix)) {
				return prefix;
			}
			if (!ours.isMigratable()) {
				row(ctx, null, element, MigrationReport.HAND_MIGRATION, ours.unmigratable());
				return Comments.add(prefix, left(ours.unmigratable()));
			}
			String comment = ours.comment();
			if (comment == null) {
				return prefix;
			}
			for (String note : ours.notes()) {
				row(ctx, null, element, MigrationReport.NOT_EXACT, note);
			}
			return Comments.add(prefix, comment);
		}

		private void row(ExecutionContext ctx, @Nullable SourceFile file, String element, String kind, String detail) {
			SourceFile source = (file != null) ? file : getCursor().firstEnclosingOrThrow(SourceFile.class);
			MigrateSpringRetryCode.this.report.insertRow(ctx,
					new MigrationReport.Row(source.getSourcePath().toString(), element, kind, detail));
		}

	}

	static boolean isOf(J.Annotation annotation, String type) {
		return TypeUtils.isOfClassType(annotation.getType(), type);
	}

	static String left(String reason) {
		return " " + Comments.TAG + ": left on Spring Retry, " + reason + " (see docs/migrating.md)";
	}

}
