
±
document_w6v5sa559ac
$227e7857-738f-4a24-bb74-e800fc4ae7b9ΏτΎΞ5
SamuelBrock$aedd2caa-6e71-47cc-9c9b-abbe705e75ed
90.924.855.7":
$b49f2b73-be80-4753-a861-841ff0827307d92vvqt5pvgvdbgbi5*

CASHvk3ejphq6aj6sryt442"
UPS
90deBaker Street"88C:!
blender v20
42ydybts23kzr684

document_bpmz78jsweb
$8d75d891-acad-436b-a7bf-2e4b7d5b5be6κώΊλ4
DiegoReyes$09b18f01-f777-4c5b-87d9-314e4db6c395
93.094.857.8":
$70147e3b-50cb-4483-8d05-82dbbf907743sops7cf6yrum9oj9c7*

CARDsd7bf2tnc4i9wdlt362 
UPS
19it
Elm Street"96A:
grill v12xsykdyrrw65a9dc:
	grill v11q2m5piweaai4sf1e:
	kettle v2cmsiknqxgz6iujg6:!
toaster v19n0dtpcz93m5jhq4v
σ
document_azfan2di2vd
$44c98a34-f7fb-426e-9179-2a87c5324433‘¥µΥ6
IvanOliveira$ab780e8f-341d-48b4-9a7d-a96e760fcf24
87.629.84.8":
$81708caa-e897-4917-80c1-5ff3a7552ff2mqhvemw47q2wgo1cjg*

CARDvn1uuicwnehs8jm7432"
GLS
40deHarbor Drive"10A:
	juicer v3(e29nd24puh6en17i: 

juicer v18fm2geo5alq14r9re: 

kettle v17cl6oacm9he5fs9w7