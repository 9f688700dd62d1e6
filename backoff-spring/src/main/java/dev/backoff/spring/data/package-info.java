/**
 * Data access: the default classification of JDBC and JPA failures ({@code retry-on-data-access})
 * and the check that stops a retry inside a transaction already marked rollback-only. Needs
 * spring-tx, read behind class-presence checks; nothing here loads without it.
 */
@NullMarked
package dev.backoff.spring.data;

import org.jspecify.annotations.NullMarked;
