package dev.backoff.rewrite;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.Properties;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Option;
import org.openrewrite.ScanningRecipe;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.maven.AddDependency;
import org.openrewrite.xml.tree.Xml;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Adds {@code dev.backoff:backoff-spring-boot-starter}, at the version of these recipes, to
 * each Spring Boot Maven module whose code uses a type of {@link #getOnlyIfUsing()}: Maven's
 * {@code AddDependency}, limited to poms that name {@code org.springframework.boot} (a parent,
 * a BOM import or a dependency).
 */
public class AddBackoffStarter extends ScanningRecipe<AddDependency.Scanned> {

	private final String onlyIfUsing;

	private final @Nullable String version;

	private final transient AddDependency addDependency;

	/**
	 * @param onlyIfUsing a type pattern, such as {@code org.springframework.retry.annotation.*}
	 * @param version the starter's version, or {@code null} for these recipes' own
	 */
	@JsonCreator
	public AddBackoffStarter(@JsonProperty("onlyIfUsing") String onlyIfUsing,
			@JsonProperty("version") @Nullable String version) {
		this.onlyIfUsing = onlyIfUsing;
		this.version = version;
		this.addDependency = new AddDependency("dev.backoff", "backoff-spring-boot-starter",
				(version != null) ? version : version(), null, null, null, onlyIfUsing, null, null, null, null, null);
	}

	/** @return the type pattern whose use in a module's code adds the starter to it */
	@Option(displayName = "Only if using", description = "A type pattern whose use adds the starter.",
			example = "org.springframework.retry.annotation.*")
	public String getOnlyIfUsing() {
		return this.onlyIfUsing;
	}

	/** @return the starter's version, or {@code null} for these recipes' own */
	@Option(displayName = "Version", description = "The starter's version; these recipes' own when not set.",
			example = "0.1.0", required = false)
	public @Nullable String getVersion() {
		return this.version;
	}

	@Override
	public String getDisplayName() {
		return "Add the Backoff Spring Boot starter";
	}

	@Override
	public String getDescription() {
		return "Adds `dev.backoff:backoff-spring-boot-starter` to the Spring Boot modules that used the retry "
				+ "annotations being migrated.";
	}

	@Override
	public AddDependency.Scanned getInitialValue(ExecutionContext ctx) {
		return this.addDependency.getInitialValue(ctx);
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getScanner(AddDependency.Scanned acc) {
		return this.addDependency.getScanner(acc);
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor(AddDependency.Scanned acc) {
		TreeVisitor<?, ExecutionContext> add = this.addDependency.getVisitor(acc);
		return new TreeVisitor<Tree, ExecutionContext>() {

			@Override
			public @Nullable Tree visit(@Nullable Tree tree, ExecutionContext ctx) {
				if (tree instanceof Xml.Document document && document.printAll().contains("org.springframework.boot")) {
					return add.visit(tree, ctx);
				}
				return tree;
			}

		};
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof AddBackoffStarter starter && Objects.equals(this.onlyIfUsing, starter.onlyIfUsing)
				&& Objects.equals(this.version, starter.version);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.onlyIfUsing, this.version);
	}

	/** @return the version these recipes were built at, which is the starter's */
	static String version() {
		Properties properties = new Properties();
		try (InputStream in = AddBackoffStarter.class.getResourceAsStream("backoff-rewrite.properties")) {
			if (in == null) {
				throw new IllegalStateException("backoff-rewrite.properties is missing from the recipes' jar");
			}
			properties.load(in);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return properties.getProperty("version");
	}

}
