/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The {@code pgque.*} keys that mean the same to both connectors. */
public final class EngineConfigDef {

    public static final String GROUP = "PgQue";

    public static final String SCHEMA_INSTALL = "pgque.schema.install";
    public static final String DELIVERY_GUARANTEE = "pgque.delivery.guarantee";

    public static final SchemaInstall SCHEMA_INSTALL_DEFAULT = SchemaInstall.NONE;
    public static final DeliveryGuarantee DELIVERY_GUARANTEE_DEFAULT = DeliveryGuarantee.AT_LEAST_ONCE;

    private EngineConfigDef() {
    }

    /**
     * Adds the shared engine keys to {@code def}. {@code guaranteeDoc} says what the guarantee
     * means for the calling connector, since the sink and the source reach it differently.
     */
    public static ConfigDef addTo(ConfigDef def, String guaranteeDoc) {
        def.define(SCHEMA_INSTALL, Type.STRING, SchemaInstall.CHOICE.label(SCHEMA_INSTALL_DEFAULT),
                SchemaInstall.CHOICE.validator(), Importance.MEDIUM,
                SchemaInstall.CHOICE.document("Whether to install the bundled PgQue engine when the pgque "
                        + "schema is absent. if_missing needs a role that may create schemas."),
                GROUP, 1, Width.SHORT, "Install engine", SchemaInstall.CHOICE.recommender());
        def.define(DELIVERY_GUARANTEE, Type.STRING, DeliveryGuarantee.CHOICE.label(DELIVERY_GUARANTEE_DEFAULT),
                DeliveryGuarantee.CHOICE.validator(), Importance.HIGH,
                DeliveryGuarantee.CHOICE.document(guaranteeDoc),
                GROUP, 2, Width.SHORT, "Delivery guarantee", DeliveryGuarantee.CHOICE.recommender());
        return def;
    }
}
