// Which postcodes a report covers: the store resolves it (ReportSnapshot.scope); the reports name it.
export { ReportError, type ReportScope } from "../store/snapshot.js";
