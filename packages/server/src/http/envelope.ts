/** The `{status: "success", data}` envelope of every successful answer. */
export const success = <T>(data: T) => ({ status: 'success' as const, data });
