package dev.backoff.rewrite;

import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.ScanningRecipe;
import org.openrewrite.SourceFile;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.JavaParser;
import org.openrewrite.java.JavaTemplate;
import org.openrewrite.java.ShortenFullyQualifiedTypeReferences;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.Space;
import org.openrewrite.java.tree.TypeUtils;

/**
 * The Java recipe of {@code dev.backoff.rewrite.MigrateFrameworkRetryable}: Spring Framework
 * 7's {@code @Retryable} becomes Backoff's {@code @Backoff} (see
 * {@link FrameworkRetryableMapping}); {@code @EnableResilientMethods} becomes
 * {@code @EnableBackoff}, or stays beside it while {@code @ConcurrencyLimit} (or a
 * {@code @Retryable} left for hand migration) still needs it. Spring Retry's {@code @Retryable},
 * of the same simple name, is left alone.
 */
public class MigrateFrameworkRetryableCode extends ScanningRecipe<MigrateFrameworkRetryableCode.Accumulator> {

	static final String ENABLE_RESILIENT_METHODS = "org.springframework.resilience.annotation.EnableResilientMethods";

	static final String CONCURRENCY_LIMIT = "org.springframework.resilience.annotation.ConcurrencyLimit";

	private final transient MigrationReport report = new MigrationReport(this);

	@Override
	public String getDisplayName() {
		return "Migrate Spring Framework's @Retryable to Backoff";
	}

	@Override
	public String getDescription() {
		return "Spring Framework 7's `@Retryable` to Backoff's `@Backoff` with the same schedule, and "
				+ "`@EnableResilientMethods` to `@EnableBackoff` unless `@ConcurrencyLimit` still needs it.";
	}

	/** Whether {@code @EnableResilientMethods} is still needed after the migration. */
	public static class Accumulator {

		boolean resilientMethodsLeft;

	}

	@Override
	public Accumulator getInitialValue(ExecutionContext ctx) {
		return new Accumulator();
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getScanner(Accumulator acc) {
		return new JavaIsoVisitor<>() {

			@Override
			public J.Annotation visitAnnotation(J.Annotation annotation, ExecutionContext ctx) {
				if (MigrateSpringRetryCode.isOf(annotation, CONCURRENCY_LIMIT)
						|| MigrateSpringRetryCode.isOf(annotation, FrameworkRetryableMapping.RETRYABLE)
								&& !FrameworkRetryableMapping.map(annotation).isMigratable()) {
					acc.resilientMethodsLeft = true;
				}
				return super.visitAnnotation(annotation, ctx);
			}

		};
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor(Accumulator acc) {
		return new JavaIsoVisitor<>() {

			@Override
			public J.ClassDeclaration visitClassDeclaration(J.ClassDeclaration type, ExecutionContext ctx) {
				J.ClassDeclaration visited = super.visitClassDeclaration(type, ctx);
				visited = visited.withPrefix(comment(type.getLeadingAnnotations(), null, visited.getPrefix(), ctx,
						type.getSimpleName()));
				if (acc.resilientMethodsLeft
						&& SpringRetryPlan.find(visited.getLeadingAnnotations(), ENABLE_RESILIENT_METHODS) != null
						&& SpringRetryPlan.find(visited.getLeadingAnnotations(), MigrateSpringRetryCode.ENABLE_BACKOFF) == null) {
					visited = JavaTemplate.builder("@" + MigrateSpringRetryCode.ENABLE_BACKOFF)
						.javaParser(JavaParser.fromJavaVersion().dependsOn(Stubs.ENABLE_BACKOFF))
						.build()
						.apply(updateCursor(visited), visited.getCoordinates()
							.addAnnotation(Comparator.comparing(J.Annotation::getSimpleName)));
					J.Annotation added = SpringRetryPlan.find(visited.getLeadingAnnotations(),
							MigrateSpringRetryCode.ENABLE_BACKOFF);
					if (added != null) {
						doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(added));
					}
					row(ctx, type.getSimpleName(), MigrationReport.HAND_MIGRATION,
							"@EnableResilientMethods kept beside @EnableBackoff for @ConcurrencyLimit");
				}
				return visited;
			}

			@Override
			public J.MethodDeclaration visitMethodDeclaration(J.MethodDeclaration method, ExecutionContext ctx) {
				J.MethodDeclaration original = method;
				J.MethodDeclaration visited = super.visitMethodDeclaration(method, ctx);
				J.ClassDeclaration type = getCursor().firstEnclosing(J.ClassDeclaration.class);
				String element = ((type != null) ? type.getSimpleName() : "") + "#" + original.getSimpleName();
				return visited.withPrefix(comment(original.getLeadingAnnotations(), original, visited.getPrefix(), ctx,
						element));
			}

			@Override
			public J.Annotation visitAnnotation(J.Annotation annotation, ExecutionContext ctx) {
				if (MigrateSpringRetryCode.isOf(annotation, FrameworkRetryableMapping.RETRYABLE)) {
					BackoffAnnotation ours = FrameworkRetryableMapping.map(annotation);
					if (!ours.isMigratable()) {
						return annotation;
					}
					maybeRemoveImport(FrameworkRetryableMapping.RETRYABLE);
					maybeRemoveImport("java.util.concurrent.TimeUnit");
					return replace(annotation, ours.source());
				}
				if (MigrateSpringRetryCode.isOf(annotation, ENABLE_RESILIENT_METHODS) && !acc.resilientMethodsLeft) {
					maybeRemoveImport(ENABLE_RESILIENT_METHODS);
					return replace(annotation, "@" + MigrateSpringRetryCode.ENABLE_BACKOFF);
				}
				return super.visitAnnotation(annotation, ctx);
			}

			private J.Annotation replace(J.Annotation annotation, String source) {
				J.Annotation replaced = Templates.replace(source, annotation, getCursor().getParentOrThrow());
				doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(replaced));
				return replaced;
			}

			/** The comment for the Framework @Retryable among the original annotations, if any. */
			private Space comment(List<J.Annotation> annotations, J.@Nullable MethodDeclaration method, Space prefix,
					ExecutionContext ctx, String element) {
				J.Annotation retryable = SpringRetryPlan.find(annotations, FrameworkRetryableMapping.RETRYABLE);
				if (retryable == null || Comments.has(prefix)) {
					return prefix;
				}
				BackoffAnnotation ours = FrameworkRetryableMapping.map(retryable);
				if (!ours.isMigratable()) {
					row(ctx, element, MigrationReport.HAND_MIGRATION, ours.unmigratable());
					return Comments.add(prefix, " " + Comments.TAG + ": left on Spring Framework's @Retryable, "
							+ ours.unmigratable() + " (see docs/migrating.md)");
				}
				noteFuture(method, ours);
				if (ours.comment() == null) {
					return prefix;
				}
				for (String note : ours.notes()) {
					row(ctx, element, MigrationReport.NOT_EXACT, note);
				}
				return Comments.add(prefix, ours.comment());
			}

			/**
			 * Framework retries a reactive return type through its adapter, but never one that is a
			 * {@code Future} (CompletableFuture included): only a synchronous throw, as Spring Retry.
			 */
			private void noteFuture(J.@Nullable MethodDeclaration method, BackoffAnnotation ours) {
				JavaType returned = (method != null && method.getMethodType() != null)
						? method.getMethodType().getReturnType() : null;
				JavaType.FullyQualified named = TypeUtils.asFullyQualified(returned);
				if (named != null && TypeUtils.isAssignableTo("java.util.concurrent.Future", returned)) {
					ours.note(method.getSimpleName() + " returns " + named.getClassName() + ": Framework's @Retryable "
							+ "retried only a synchronous throw, never a failed " + named.getClassName() + " (a Future), "
							+ "which Backoff retries too: the call may now run up to maxAttempts times, so check that it "
							+ "is safe to repeat");
				}
			}

			private void row(ExecutionContext ctx, String element, String kind, String detail) {
				SourceFile source = getCursor().firstEnclosingOrThrow(SourceFile.class);
				MigrateFrameworkRetryableCode.this.report.insertRow(ctx,
						new MigrationReport.Row(source.getSourcePath().toString(), element, kind, detail));
			}

		};
	}

}
