/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.OptionalLong;

/**
 * What an idempotent send did.
 *
 * @param eventId the id of the event appended now or, for a duplicate, of the event first sent
 *                with the key; empty only in the rare case where the key's window ended and was
 *                cleaned up between the engine's two statements
 * @param deduped true when the key was already live and nothing was appended
 */
public record SendIdemResult(OptionalLong eventId, boolean deduped) {
}
