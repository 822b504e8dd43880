--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Layer: bootstrap (README.md): ends the install's one transaction.
COMMIT;
