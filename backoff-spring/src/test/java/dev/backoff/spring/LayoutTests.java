package dev.backoff.spring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layout that backoff-spring promises, read from its sources: no Spring Boot anywhere, so
 * that a plain Spring application can use it; packages small enough to read; and no package
 * that imports one that imports it back; and no main file of a library module over 400 lines.
 */
class LayoutTests {

	private static final Path SOURCES = Path.of("src/main/java/dev/backoff/spring");

	private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(dev\\.backoff\\.spring(?:\\.[a-z]+)*)\\.[A-Z]",
			Pattern.MULTILINE);

	/** Every main source file, by package. */
	private static final Map<String, List<Path>> files = new TreeMap<>();

	@BeforeAll
	static void readSources() throws IOException {
		try (Stream<Path> paths = Files.walk(SOURCES)) {
			paths.filter((path) -> path.toString().endsWith(".java")).forEach((path) -> {
				String relative = SOURCES.relativize(path.getParent()).toString().replace('/', '.');
				String pkg = relative.isEmpty() ? "dev.backoff.spring" : "dev.backoff.spring." + relative;
				files.computeIfAbsent(pkg, (key) -> new ArrayList<>()).add(path);
			});
		}
		assertThat(files).containsKeys("dev.backoff.spring", "dev.backoff.spring.operation", "dev.backoff.spring.config");
	}

	@Test
	void nothingOfSpringBoot() throws IOException {
		for (List<Path> paths : files.values()) {
			for (Path path : paths) {
				assertThat(Files.readString(path)).as(path.toString()).doesNotContain("org.springframework.boot");
			}
		}
		// Boot may be on the test class path only (SettingsBinder is compared with its Binder).
		Matcher dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL)
			.matcher(Files.readString(Path.of("pom.xml")));
		while (dependency.find()) {
			if (dependency.group(1).contains("spring-boot")) {
				assertThat(dependency.group(1)).contains("<scope>test</scope>");
			}
		}
	}

	/**
	 * A package splits by job rather than grow: twenty files, since the operation package's
	 * jobs (the source, the return shapes, fallbacks, live changes) share package-private
	 * state that a sub-package would have to make public.
	 */
	@Test
	void noPackageHasMoreThanTwentyFiles() {
		files.forEach((pkg, paths) -> assertThat(paths.stream()
			.filter((path) -> !path.getFileName().toString().equals("package-info.java"))
			.count()).as(pkg).isLessThanOrEqualTo(20));
	}

	/** Every library module's main sources, the benchmarks and the sample aside. */
	@Test
	void noMainFileOfALibraryModuleHasMoreThan400Lines() throws IOException {
		Map<String, Long> long_ = new TreeMap<>();
		for (String module : List.of("backoff-core", "backoff-spring", "backoff-autoconfigure", "backoff-aspectj",
				"backoff-test", "backoff-rewrite")) {
			Path main = Path.of("..", module, "src/main");
			assertThat(main).as(module).isDirectory();
			try (Stream<Path> paths = Files.walk(main)) {
				for (Path path : paths.filter((path) -> path.toString().matches(".*\\.(java|kt)$")).toList()) {
					long lines = Files.readAllLines(path).size();
					if (lines > 400) {
						long_.put(main.relativize(path).toString(), lines);
					}
				}
			}
		}
		assertThat(long_).as("main files over 400 lines").isEmpty();
	}

	@Test
	void noPackageImportsOneThatImportsIt() throws IOException {
		Map<String, Set<String>> imports = new TreeMap<>();
		for (Map.Entry<String, List<Path>> entry : files.entrySet()) {
			Set<String> imported = new TreeSet<>();
			for (Path path : entry.getValue()) {
				Matcher matcher = IMPORT.matcher(Files.readString(path));
				while (matcher.find()) {
					imported.add(matcher.group(1));
				}
			}
			imported.remove(entry.getKey());
			imports.put(entry.getKey(), imported);
		}
		assertThat(imports.get("dev.backoff.spring")).as("the root imports the parts").isNotEmpty();
		imports.forEach((pkg, imported) -> {
			for (String other : imported) {
				assertThat(reaches(imports, other, pkg, new TreeSet<>())).as(pkg + " imports " + other
						+ ", which leads back to it").isFalse();
			}
		});
	}

	/** Whether {@code from} reaches {@code to} through imports. */
	private static boolean reaches(Map<String, Set<String>> imports, String from, String to, Set<String> seen) {
		if (from.equals(to)) {
			return true;
		}
		if (!seen.add(from)) {
			return false;
		}
		for (String next : imports.getOrDefault(from, Set.of())) {
			if (reaches(imports, next, to, seen)) {
				return true;
			}
		}
		return false;
	}

}
