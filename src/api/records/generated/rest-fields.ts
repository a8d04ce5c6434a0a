/**
 * @module Each kind's REST fields, GENERATED from schemas/*.schema.json and
 * src/api/records/rest-field-mapping.ts by `npm run gen:openapi-components`. Do not edit by
 * hand: change the schema or the mapping and regenerate.
 */
import type { Kind } from '../../../model/kinds.js';
import type { RestField } from '../rest-fields.js';

export const REST_FIELDS: Readonly<Record<Kind, readonly RestField[]>> = {
  "Provider": [
    {
      "rest": "vendor",
      "spec": "vendor",
      "create": true,
      "update": false,
      "component": "VendorId"
    },
    {
      "rest": "endpoint",
      "spec": "endpoint",
      "create": true,
      "update": "clearable",
      "component": "ProviderEndpoint"
    }
  ],
  "SSHKey": [
    {
      "rest": "public_key",
      "spec": "publicKey",
      "create": true,
      "update": false,
      "component": "SSHKeyPublicKey",
      "recordShowsObserved": true
    },
    {
      "rest": "algorithm",
      "spec": "algorithm",
      "create": true,
      "update": false,
      "component": "SSHKeyAlgorithm",
      "recordShowsObserved": true
    },
    {
      "rest": "bits",
      "spec": "bits",
      "create": true,
      "update": false,
      "component": "SSHKeyBits",
      "recordShowsObserved": true
    }
  ],
  "Server": [
    {
      "rest": "provider_id",
      "spec": "provider",
      "create": true,
      "update": false,
      "references": "Provider"
    },
    {
      "rest": "region",
      "spec": "region",
      "create": true,
      "update": false,
      "component": "ServerRegion"
    },
    {
      "rest": "size",
      "spec": "size",
      "create": true,
      "update": "set",
      "component": "ServerSize"
    },
    {
      "rest": "host",
      "spec": "host",
      "create": true,
      "update": false,
      "component": "ServerSshHost"
    },
    {
      "rest": "port",
      "spec": "port",
      "create": true,
      "update": false,
      "component": "ServerSshPort",
      "whenAbsent": 22
    },
    {
      "rest": "user",
      "spec": "user",
      "create": true,
      "update": false,
      "component": "ServerSshUser",
      "whenAbsent": "root"
    },
    {
      "rest": "image",
      "spec": "image",
      "create": true,
      "update": "set",
      "component": "OsImage",
      "whenAbsent": "debian-12"
    },
    {
      "rest": "user_data",
      "spec": "userData",
      "create": true,
      "update": false,
      "component": "ServerUserData",
      "writeOnly": true
    },
    {
      "rest": "ssh_key_ids",
      "spec": "sshKeys",
      "create": true,
      "update": false,
      "component": "SshKeyIds",
      "references": "SSHKey",
      "whenAbsent": []
    },
    {
      "rest": "state",
      "spec": "state",
      "create": true,
      "update": "set",
      "component": "ServerState",
      "whenAbsent": "running"
    },
    {
      "rest": "deletion_policy",
      "spec": "deletionPolicy",
      "create": true,
      "update": "set",
      "component": "ServerDeletionPolicy"
    }
  ],
  "Database": [
    {
      "rest": "type",
      "spec": "type",
      "create": true,
      "update": false,
      "component": "DatabaseType"
    },
    {
      "rest": "server_id",
      "spec": "server",
      "create": true,
      "update": false,
      "references": "Server"
    },
    {
      "rest": "managed",
      "spec": "managed",
      "create": true,
      "update": false,
      "component": "DatabaseManaged",
      "whenAbsent": false
    },
    {
      "rest": "provider_id",
      "spec": "provider",
      "create": true,
      "update": false,
      "references": "Provider"
    },
    {
      "rest": "region",
      "spec": "region",
      "create": true,
      "update": false,
      "component": "DatabaseRegion"
    },
    {
      "rest": "size",
      "spec": "size",
      "create": true,
      "update": "set",
      "component": "DatabaseSize"
    },
    {
      "rest": "version",
      "spec": "version",
      "create": true,
      "update": "set",
      "component": "DatabaseVersion"
    },
    {
      "rest": "storage_gb",
      "spec": "storageGb",
      "create": true,
      "update": "set",
      "component": "StorageGb"
    },
    {
      "rest": "backup_schedule",
      "spec": "backup.schedule",
      "create": true,
      "update": "clearable",
      "component": "BackupSchedule",
      "clearsParent": true
    },
    {
      "rest": "backup_retention",
      "spec": "backup.retention",
      "create": true,
      "update": "set",
      "component": "BackupRetention",
      "whenAbsent": 7
    },
    {
      "rest": "deletion_policy",
      "spec": "deletionPolicy",
      "create": true,
      "update": "set",
      "component": "DatabaseDeletionPolicy"
    }
  ],
  "App": [
    {
      "rest": "server_id",
      "spec": "server",
      "create": true,
      "update": false,
      "references": "Server"
    },
    {
      "rest": "source",
      "spec": "source",
      "create": true,
      "update": "set",
      "component": "AppSource"
    },
    {
      "rest": "build",
      "spec": "build",
      "create": true,
      "update": "clearable",
      "component": "AppBuild"
    },
    {
      "rest": "command",
      "spec": "command",
      "create": true,
      "update": "clearable",
      "component": "AppCommand"
    },
    {
      "rest": "port",
      "spec": "port",
      "create": true,
      "update": "clearable",
      "component": "AppPort"
    },
    {
      "rest": "env",
      "spec": "env",
      "create": true,
      "update": "set",
      "component": "AppEnv",
      "whenAbsent": {}
    },
    {
      "rest": "database_ids",
      "spec": "databases",
      "create": true,
      "update": "set",
      "component": "DatabaseIds",
      "references": "Database",
      "whenAbsent": []
    },
    {
      "rest": "health_check_path",
      "spec": "healthCheck.path",
      "create": true,
      "update": "clearable",
      "component": "HealthCheckPath"
    },
    {
      "rest": "state",
      "spec": "state",
      "create": true,
      "update": "set",
      "component": "AppState",
      "whenAbsent": "running"
    }
  ],
  "AlertRule": [
    {
      "rest": "metric",
      "spec": "metric",
      "create": true,
      "update": "set",
      "component": "AlertRuleMetric"
    },
    {
      "rest": "threshold",
      "spec": "threshold",
      "create": true,
      "update": "set",
      "component": "AlertRuleThreshold"
    },
    {
      "rest": "for_seconds",
      "spec": "forSeconds",
      "create": true,
      "update": "set",
      "component": "AlertRuleForSeconds",
      "whenAbsent": 60
    },
    {
      "rest": "channels",
      "spec": "channels",
      "create": true,
      "update": "set",
      "component": "AlertRuleChannels",
      "whenAbsent": []
    }
  ]
};
