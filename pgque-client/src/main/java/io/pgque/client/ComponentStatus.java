/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * One row of the engine's health roll-up, {@code pgque.status()}.
 *
 * @param component what the row is about ({@code engine}, {@code scheduler}, a queue, ...)
 * @param status    its state in a word ({@code ok}, {@code pg_cron}, ...)
 * @param detail    the details in words, or null
 */
public record ComponentStatus(String component, String status, String detail) {
}
