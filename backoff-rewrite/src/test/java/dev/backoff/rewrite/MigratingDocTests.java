package dev.backoff.rewrite;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/migrating.md's mapping tables name a before/after test on every row: each name must be a
 * test here, so that a renamed or removed test cannot leave a row without one.
 */
class MigratingDocTests {

	private static final Pattern NAME = Pattern.compile("`([A-Za-z]+)`");

	@Test
	void everyRowOfTheMappingTablesNamesAnExistingTest() throws IOException {
		Set<String> tests = new HashSet<>();
		for (Class<?> type : List.of(MigrateSpringRetryTests.class, MigrateFrameworkRetryableTests.class,
				MavenBuildTests.class, SpelRootTests.class, SpringRetryExpressionTimingTests.class)) {
			tests.add(type.getSimpleName());
			for (Method method : type.getDeclaredMethods()) {
				if (method.isAnnotationPresent(Test.class)) {
					tests.add(method.getName());
				}
			}
		}
		List<String> rows = new ArrayList<>();
		List<String> named = new ArrayList<>();
		for (String line : Files.readAllLines(Path.of("../docs/migrating.md"))) {
			String[] cells = line.split("\\|");
			// A mapping row has five cells; the last is the test (the header's says "test").
			if (line.startsWith("|") && cells.length == 6 && !cells[5].isBlank() && !cells[5].contains("---")
					&& !cells[5].trim().equals("test")) {
				rows.add(line);
				Matcher matcher = NAME.matcher(cells[5]);
				boolean any = false;
				while (matcher.find()) {
					named.add(matcher.group(1));
					any = true;
				}
				assertThat(any).as("a row without a test: %s", line).isTrue();
			}
		}
		assertThat(rows).as("the rows of both tables").hasSizeGreaterThan(40);
		assertThat(tests).containsAll(named);
	}

}
