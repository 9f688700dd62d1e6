package dev.backoff.build;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a release publishes, read from the build files: backoff-bom lists every published
 * module (a module of the parent whose {@code maven.deploy.skip} is not {@code true}) and
 * nothing else, has no parent (so no Spring Boot versions come with it), and keeps the
 * parent's version; every published pom has the metadata Maven Central requires. Here, in a
 * module that is not published and builds after all the others, because the check is about
 * the build rather than any one module.
 */
class ReleaseArtifactsTests {

	private static final Path ROOT = Path.of("..");

	private static final Element PARENT = pom(ROOT.resolve("pom.xml"));

	private static final Element BOM = pom(ROOT.resolve("backoff-bom/pom.xml"));

	@Test
	void theBomListsEveryPublishedModuleAndNothingElse() {
		List<String> managed = new ArrayList<>();
		for (Element dependency : children(child(child(BOM, "dependencyManagement"), "dependencies"), "dependency")) {
			assertThat(text(dependency, "groupId")).isEqualTo("dev.backoff");
			assertThat(text(dependency, "version")).isEqualTo("${project.version}");
			assertThat(child(dependency, "scope")).as("an import would bring another BOM's versions").isNull();
			managed.add(text(dependency, "artifactId"));
		}
		assertThat(managed).containsExactlyInAnyOrderElementsOf(published().keySet());
	}

	@Test
	void theBomHasNoParentAndTheParentsVersion() {
		assertThat(child(BOM, "parent")).isNull();
		assertThat(text(BOM, "packaging")).isEqualTo("pom");
		assertThat(text(BOM, "groupId")).isEqualTo(text(PARENT, "groupId"));
		assertThat(text(BOM, "version")).isEqualTo(text(PARENT, "version"));
		assertThat(modules()).contains("backoff-bom");
	}

	@Test
	void theSampleAndTheBenchmarksAreNotPublished() {
		assertThat(modules()).contains("sample-app", "backoff-benchmarks");
		assertThat(published()).doesNotContainKeys("backoff-sample-app", "backoff-benchmarks")
			.containsKeys("backoff-core", "backoff-spring-boot-starter");
	}

	@Test
	void everyPublishedPomHasWhatMavenCentralRequires() {
		for (Element pom : List.of(PARENT, BOM)) {
			assertThat(text(pom, "url")).startsWith("https://");
			assertThat(text(child(child(pom, "licenses"), "license"), "name")).isEqualTo("Apache License, Version 2.0");
			assertThat(text(child(pom, "scm"), "connection")).startsWith("scm:git:");
			assertThat(text(child(pom, "scm"), "url")).isEqualTo(text(pom, "url"));
			assertThat(text(child(child(pom, "developers"), "developer"), "name")).isNotBlank();
		}
		assertThat(text(BOM, "url")).isEqualTo(text(PARENT, "url"));
		published().forEach((artifactId, pom) -> {
			// The rest is inherited from the parent; these are each module's own.
			assertThat(text(child(pom, "parent"), "artifactId")).as(artifactId).isEqualTo(text(PARENT, "artifactId"));
			assertThat(text(pom, "name")).as(artifactId).isNotBlank().isNotEqualTo(text(PARENT, "name"));
			assertThat(text(pom, "description")).as(artifactId).isNotBlank().isNotEqualTo(text(PARENT, "description"));
		});
	}

	/** The parent's modules that a release publishes, by artifactId, but for the BOM itself. */
	private static Map<String, Element> published() {
		Map<String, Element> published = new LinkedHashMap<>();
		for (String module : modules()) {
			Element pom = pom(ROOT.resolve(module).resolve("pom.xml"));
			Element properties = child(pom, "properties");
			boolean skipped = properties != null && "true".equals(text(properties, "maven.deploy.skip"));
			if (!skipped && !module.equals("backoff-bom")) {
				published.put(text(pom, "artifactId"), pom);
			}
		}
		return published;
	}

	private static List<String> modules() {
		return children(child(PARENT, "modules"), "module").stream().map(Node::getTextContent).toList();
	}

	private static Element pom(Path file) {
		assertThat(file).exists();
		try (var in = Files.newInputStream(file)) {
			return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in).getDocumentElement();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot read " + file, ex);
		}
	}

	private static Element child(Element parent, String name) {
		List<Element> children = children(parent, name);
		return children.isEmpty() ? null : children.get(0);
	}

	private static List<Element> children(Element parent, String name) {
		List<Element> children = new ArrayList<>();
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				children.add(element);
			}
		}
		return children;
	}

	private static String text(Element parent, String name) {
		Element child = child(parent, name);
		return (child != null) ? child.getTextContent().strip() : null;
	}

}
