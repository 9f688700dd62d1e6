package dev.backoff.rewrite;

import org.openrewrite.Column;
import org.openrewrite.DataTable;
import org.openrewrite.Recipe;

/**
 * What a migration did not carry over exactly, and what it left for a person: one row per
 * attribute whose Backoff equivalent differs, per annotation or class left untouched, and for
 * the Spring Retry dependency when it has to stay.
 */
public class MigrationReport extends DataTable<MigrationReport.Row> {

	/** An attribute migrated to the nearest Backoff equivalent, which behaves differently. */
	public static final String NOT_EXACT = "not exact";

	/** Code left untouched, to migrate by hand (docs/migrating.md shows how). */
	public static final String HAND_MIGRATION = "left for hand migration";

	/**
	 * Creates the table for a recipe.
	 * @param recipe the recipe that fills it
	 */
	public MigrationReport(Recipe recipe) {
		super(recipe, "Backoff migration report",
				"What was not migrated exactly, and what was left for hand migration, with why.");
	}

	/**
	 * One finding.
	 * @param sourcePath the file
	 * @param element the class, or class and method, concerned
	 * @param kind {@link #NOT_EXACT} or {@link #HAND_MIGRATION}
	 * @param detail what differs or why it was left, and what to do
	 */
	public record Row(@Column(displayName = "Source path", description = "The file.") String sourcePath,
			@Column(displayName = "Element", description = "The class, or class#method.") String element,
			@Column(displayName = "Kind", description = "'not exact' or 'left for hand migration'.") String kind,
			@Column(displayName = "Detail", description = "What differs or why it was left, and what to do.") String detail) {

	}

}
