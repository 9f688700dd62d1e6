package dev.backoff.sample.counters;

import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The counters of scenario 2.
 *
 * <ul>
 * <li>{@code GET /counters/{id}}: the row.</li>
 * <li>{@code POST /counters/{id}/increment}: one increment, retried on conflict; 409 if
 * every attempt conflicted.</li>
 * <li>{@code POST /counters/faults?conflictNext=N}: the next N attempts meet a rival
 * writer.</li>
 * <li>{@code DELETE /counters/{id}}: back to total 0, version 0.</li>
 * </ul>
 */
@RestController
public class CounterController {

	private final CounterStore store;

	private final CounterService service;

	public CounterController(CounterStore store, CounterService service) {
		this.store = store;
		this.service = service;
	}

	@GetMapping("/counters/{id}")
	public CounterRow counter(@PathVariable long id) {
		return this.store.read(id);
	}

	@PostMapping("/counters/{id}/increment")
	public CounterRow increment(@PathVariable long id) throws InterruptedException {
		return this.service.increment(id);
	}

	@PostMapping("/counters/faults")
	public Map<String, Integer> faults(@RequestParam int conflictNext) {
		return Map.of("conflictNext", this.service.conflictNext(conflictNext));
	}

	@DeleteMapping("/counters/{id}")
	public ResponseEntity<Void> reset(@PathVariable long id) {
		this.store.reset(id);
		return ResponseEntity.noContent().build();
	}

	@ExceptionHandler(OptimisticConflictException.class)
	@ResponseStatus(HttpStatus.CONFLICT)
	ProblemDetail conflict(OptimisticConflictException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
	}

	@ExceptionHandler(UnknownCounterException.class)
	@ResponseStatus(HttpStatus.NOT_FOUND)
	ProblemDetail unknown(UnknownCounterException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler(IllegalArgumentException.class)
	@ResponseStatus(HttpStatus.BAD_REQUEST)
	ProblemDetail badSetting(IllegalArgumentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

}
